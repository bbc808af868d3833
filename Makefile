# Two entry points for a fresh machine: `make app` and `make test`. Each creates .venv on first
# use and reinstalls only when the requirement files change.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
# llama.cpp's default build targets the build machine's CPU (-march=native); on CPUs with AMX
# (Sapphire Rapids VMs) that build segfaults in its first decode. A portable AVX2 build runs on
# any x86-64 server of the last decade and is fast enough for a 270M model. --no-cache-dir keeps
# pip from reusing a wheel cached from a native build.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

.PHONY: app test lint install install-dev

$(VENV)/.runtime: requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet --no-cache-dir \
		"$$(grep '^llama-cpp-python==' requirements.txt)"
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.runtime

install-dev: $(VENV)/.dev

app: install
	$(VENV)/bin/streamlit run app/main.py --server.port $(PORT)

lint: install-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

test: install-dev
	bash scripts/ensure_chromium.sh
	$(PY) -m ruff check .
	$(PY) -m pytest -m "" -q
