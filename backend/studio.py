"""The studio's services for one settings object: library, embedder, store, indexer and model.

The app keeps one `Studio` per settings (Streamlit's resource cache), so the embedder and the
model are loaded once and shared by every browser session.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from backend.config import Settings
from backend.errors import ConfigError
from backend.indexer import Indexer
from backend.library import Library
from backend.llm.base import LLMClient, ServiceStatus
from backend.llm.capability import StructureChoice, capability, choose_structure_llm, structure_llm_client
from backend.llm.factory import llm_status, make_llm
from backend.pipelines import Answer, RunContext, get_method
from backend.retrieval.embedder import get_embedder
from backend.retrieval.store import VectorStore


class Studio:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.library = Library(settings.data_dir)
        self.embedder = get_embedder(settings.embedding_model, settings.embedding_batch_size)
        self.store = VectorStore(settings, self.embedder.name, self.embedder.dimension)
        self.indexer = Indexer(settings, self.embedder, self.store, self.library)
        self.indexer.prune_orphans()

    @cached_property
    def llm(self) -> LLMClient:
        return make_llm(self.settings)

    def stale_documents(self) -> list[str]:
        """Documents indexed with another embedder or chunk size: unsearchable until re-indexed."""
        current = self.settings.index_fingerprint()
        return [s.id for s in self.library.summaries() if s.index_fingerprint != current]

    def ask(self, method: str, question: str, doc_ids: Sequence[str] | None = None) -> Answer:
        if not question.strip():
            raise ConfigError("The question is empty.", "Type a question first.")
        runner = get_method(method)
        ctx = RunContext(self.settings, self.llm, self.embedder, self.store, self.library, doc_ids)
        return runner.run(question.strip(), ctx)

    def structure_choice(self, *, recheck: bool = False) -> StructureChoice:
        """Who builds discourse structure now; `recheck` probes the model again first."""
        if recheck and self.settings.structure_producer == "auto":
            capability(structure_llm_client(self.settings, self.llm), refresh=True)
        return choose_structure_llm(self.settings, self.llm)

    def statuses(self) -> list[ServiceStatus]:
        """LLM, embedder and store health for the sidebar; never raises."""
        embedder = ServiceStatus(
            f"embeddings: {self.embedder.name}", True, f"{self.embedder.dimension} dims, loaded on CPU"
        )
        return [llm_status(self.settings), embedder, self.store.status()]
