"""Who writes the ``summarize`` strategy's summary for a Mysis."""

from __future__ import annotations

from ..core.composition import SummaryRequest
from ..core.summarizer import ExtractiveSummarizer, Summarizer
from ..providers.base import ChatRequest, Provider, ProviderError, ProviderSettings


class ModelSummarizer:
    """Asks the Mysis's own model for the summary; falls back to the extractive one.

    The request carries no tools, so the model can only answer in text.
    """

    def __init__(self, provider: Provider, settings: ProviderSettings) -> None:
        self.provider = provider
        self.settings = settings
        self.fallback = ExtractiveSummarizer()

    async def summarize(self, request: SummaryRequest) -> str:
        """The model's summary, or the labelled extractive one when it fails or is empty."""
        try:
            response = await self.provider.chat(
                ChatRequest(
                    messages=list(request.messages), tools=(), settings=self.settings, stream=False
                )
            )
        except ProviderError:
            return await self.fallback.summarize(request)
        text = response.content.strip()
        return text if text else await self.fallback.summarize(request)


def summarizer_for(provider: Provider, settings: ProviderSettings) -> Summarizer:
    """The provider itself when it summarizes natively (the autopilot), else its model."""
    native = getattr(provider, "summarize", None)
    if callable(native):
        return provider  # type: ignore[return-value]
    return ModelSummarizer(provider, settings)
