# The studio on its embedded defaults; the steps are the README's `make app`.
FROM python:3.11.7-slim-bookworm

RUN apt-get update \
    && apt-get install -y --no-install-recommends make build-essential cmake git \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /studio
COPY requirements.txt pyproject.toml Makefile ./
COPY backend ./backend
COPY app ./app
COPY components ./components
COPY assets ./assets
COPY .streamlit ./.streamlit
RUN make install

ENV STUDIO_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s CMD python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health')"
CMD ["make", "app", "PORT=8501"]
