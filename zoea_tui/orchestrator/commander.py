"""The commander: the swarm's owner, and the one object the UI and CLI drive.

It opens the store and the game, brings every stored Mysis back in the state
it was left in (a stopped Mysis stays stopped), creates a starter swarm on an
empty database, and offers every action of the command center: create,
configure, start, stop, relaunch, delete, direct messages, broadcasts, and
the preview of any Mysis's next request under any strategy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..config import Config, ConfigError, ProviderConfig, resolve_api_key
from ..core.composition import ComposeSettings, Composition, ContextTooSmallError
from ..core.game_tool import ToolsMode, with_fitting_tools
from ..core.pricing import Bill, Prices
from ..core.redaction import mask_text
from ..core.retry import BOUNDED, PATIENT, RetryPolicy
from ..core.strategies import STRATEGIES
from ..core.tokens import encoding_name
from ..core.types import Memory, Turn
from ..game.accounts import AccountPool
from ..game.backend import GameBackend
from ..game.session import GameSession
from ..game.state_cache import GameStateCache, Snapshot, StoredResult
from ..providers.base import Provider, ProviderError, ProviderSettings
from ..providers.building import provider_settings
from ..providers.discovery import listed_models, ordered_models
from ..providers.registry import build_provider, preload
from ..storage import Broadcast, MysisRecord, NewMemory, Store, StoreError
from ..storage.arena_runs import ArenaTables
from ..storage.errors import DiskFull
from .checked import CheckedRequest, check_request
from .clock import Clock, RealClock, VirtualClock
from .context import next_composition
from .events import (
    BroadcastSent,
    ErrorRaised,
    EventBus,
    GameTick,
    MessageStored,
    MysisDeleted,
    MysisView,
    NetworkActivity,
    Notice,
)
from .mysis import MysisRuntime
from .refusals import CommandRefused
from .retention import RetentionKeeper
from .services import SwarmServices
from .spend import SpendMeter, SwarmSpend
from .story import StoryPort
from .swarm_tools import swarm_router

if TYPE_CHECKING:
    from ..providers.probe import ProbeReport

log = logging.getLogger(__name__)

STARTER_NAMES = ("Ada", "Brin", "Cass")
#: Most stored tool results a Mysis's last known game state is read back from at start.
RESTORED_RESULTS = 200
#: Builds a Mysis's provider (tests and benchmarks inject scripted models).
ProviderFactory = Callable[[MysisRecord], Provider]


class Commander:
    """Owns the swarm. Build it with :meth:`open`; close it with :meth:`shutdown`."""

    strategies: tuple[str, ...] = tuple(STRATEGIES)

    def __init__(
        self,
        config: Config,
        store: Store,
        backend: GameBackend,
        *,
        clock: Clock | None = None,
        bus: EventBus | None = None,
        provider_factory: ProviderFactory | None = None,
        model_retry: RetryPolicy | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.backend = backend
        self.clock: Clock = clock or RealClock()
        self.bus = bus or EventBus()
        self.cache = GameStateCache()
        self._myses: dict[int, MysisRuntime] = {}
        self._llm = 0
        self._mcp = 0
        self._tick: int | None = None
        #: Follows the embedded world's clock, so the tick shown stays live while every
        #: Mysis waits (no game result to report it).
        self._clock_watch: asyncio.Task[None] | None = None
        self._closed = False
        self._provider_factory = provider_factory
        #: Called after every finished turn (``zoea simulate`` stops Myses with it).
        self.on_turn: Callable[[MysisRuntime], None] | None = None
        #: All a Mysis may use of the swarm (it never holds the commander).
        self.services = SwarmServices(
            store=store,
            bus=self.bus,
            clock=self.clock,
            nudge=config.nudge,
            max_tool_iterations=config.context.max_tool_iterations,
            tick_seconds=backend.tick_seconds,
            settings_for=self.settings_for,
            game_state=self._game_state_of,
            in_flight=self.in_flight,
            saw_tick=self.saw_tick,
            closing=lambda: self._closed,
            turn_finished=self._turn_finished,
            model_retry=model_retry
            or (BOUNDED if isinstance(self.clock, VirtualClock) else PATIENT),
            spend=SpendMeter(self.clock, self._prices_of),
        )
        #: What the UI reads of the Myses' past: pages, search, the request log.
        self.story = StoryPort(store, self.settings_for)
        #: Keeps the request log as ``[storage] request_log`` says (memories never go).
        self.retention = RetentionKeeper(store, config.storage.request_log)
        self._telling: asyncio.Task[None] | None = None
        store.on_disk_full(self._disk_full)

    # -- opening and closing -----------------------------------------------------

    @classmethod
    async def open(
        cls,
        config: Config,
        *,
        db_path: Path,
        clock: Clock | None = None,
        autostart: bool = True,
        backend: GameBackend | None = None,
        starter_swarm: bool = True,
        provider_factory: ProviderFactory | None = None,
        model_retry: RetryPolicy | None = None,
    ) -> Commander:
        """Open the store and the game; restore the swarm (and seed it when empty).

        ``model_retry`` is how the Myses try a failed model call again. By default they
        keep trying what heals by waiting (``retry.PATIENT``), unless the clock is a
        virtual one (``zoea simulate``, ``zoea arena``, the benchmarks), where a wait
        costs nothing and an endless policy would try a dead server as fast as it
        refuses: there ``retry.BOUNDED``.
        """
        store = await Store.open(db_path)
        backend = backend or GameBackend.from_config(config.game, data_dir=db_path.parent)
        commander = cls(
            config,
            store,
            backend,
            clock=clock,
            provider_factory=provider_factory,
            model_retry=model_retry,
        )
        try:
            await backend.start()
            commander._watch_clock()
            # The tokenizer loads in about 0.3 s: off the loop, before any Mysis counts.
            await asyncio.to_thread(encoding_name)
            # Calls an earlier run left pending were cut by its quit: say so.
            await store.cancel_pending_requests()
            records = await store.list_myses()
            if not records and starter_swarm:
                # The starter swarm is bounded like any other (``swarm.max_myses``).
                for name in STARTER_NAMES[: config.swarm.max_myses]:
                    records.append(
                        await store.create_mysis(
                            name,
                            provider=config.swarm.default_provider,
                            model=config.provider(config.swarm.default_provider).model,
                            strategy=config.swarm.strategy,
                        )
                    )
                    records[-1] = await store.update_mysis(records[-1].id, state="running")
            # The providers' modules load off the loop, before any Mysis is built.
            await asyncio.to_thread(preload, commander._provider_types(records))
            for record in records:
                commander._myses[record.id] = commander._runtime(record)
            await commander._restore_from_before()
            commander.retention.start()
            if autostart:
                for runtime in commander._myses.values():
                    if runtime.state == "running":
                        await runtime.start()
        except BaseException:
            await commander.shutdown(timeout=1)
            raise
        return commander

    async def shutdown(self, timeout: float = 10.0) -> None:
        """Let in-flight turns end (bounded by ``timeout``; 0: cut them at once), stop
        the loops, close sessions and store.

        States are left as they are, so the next launch resumes the same swarm.
        """
        if self._closed:
            return
        self._closed = True
        runtimes = list(self._myses.values())
        # The store is closed whatever fails before it (a full disk fails the Myses'
        # last writes and the world's save): its connection's thread, left open, would
        # keep the process alive after the command has ended.
        try:
            if timeout > 0:
                await asyncio.gather(*(r.wait_turn(timeout) for r in runtimes))
            # Every Mysis at once: a call still in flight is cancelled (its request is
            # logged as cancelled; a call without its result is answered "Tool no
            # response" next time).
            await asyncio.gather(*(r.halt(timeout=1.0) for r in runtimes))
            await asyncio.gather(
                *(r.session.aclose() for r in runtimes),
                *(r.provider.aclose() for r in runtimes),
                self.retention.close(),
                return_exceptions=True,
            )
            await self.backend.stop()
        finally:
            if self._clock_watch is not None:
                self._clock_watch.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._clock_watch
            await self.store.close()

    def _disk_full(self, error: DiskFull) -> None:
        """A write found the disk full: the commander is told once, in one line. Each
        Mysis stops at its own next write, errored with the same words, and resumes when
        relaunched once there is room again."""
        if self._closed or self._telling is not None:
            return
        message = f"{error}; the Myses stop at their next write (relaunch them after)"
        self._telling = asyncio.get_running_loop().create_task(
            self.bus.publish(ErrorRaised(mysis_id=None, message=message)), name="disk-full"
        )

    async def _restore_from_before(self) -> None:
        """Read back, for each Mysis, what the panes show from the start of a relaunch:
        its last known game state from its stored tool results (marked as from before it
        until a fresh result comes: :meth:`game_state_restored`), and its last request's
        figures from the request log, so its meter shows what it last sent, as the
        request list does (not 0 until its first request of this run)."""
        for runtime in self._myses.values():
            account = runtime.router.account
            if account and not self.cache.state(account):
                results = await self.store.recent_tool_results(runtime.id, RESTORED_RESULTS)
                self.cache.restore(
                    account,
                    (
                        StoredResult(m.tool_name, m.content, m.game_tick, m.created_at)
                        for m in results
                        if m.tool_name
                    ),
                )
            newest = await self.story.requests(runtime.id, limit=1)
            if newest:
                runtime.remember_request(newest[0].tokens)

    def game_state_restored(self, mysis_id: int) -> bool:
        """True while the Mysis's game state is the last known one from before the
        relaunch (no result of this run has refreshed it yet)."""
        account = self._account_of(mysis_id)
        return account is not None and self.cache.restored(account)

    def _runtime(self, record: MysisRecord) -> MysisRuntime:
        provider = self._provider(record)
        # The session waits out timing refusals and reconnects on the swarm's clock.
        session = GameSession(self.backend.connector(), name=record.name, sleep=self.clock.sleep)
        pool = AccountPool(self.store, record.id, self.backend.server)
        router = swarm_router(pool, session, cache=self.cache, swarm=self)
        router.account = record.account
        runtime = MysisRuntime(self.services, record, provider, session, router)
        runtime.provider_origin = self._origin(record.provider)
        return runtime

    def _origin(self, name: str) -> str:
        """The convention that added provider ``name`` ("" for a configured one)."""
        provider = self.config.providers.get(name)
        return (provider.origin or "") if provider is not None else ""

    def _provider_types(self, records: list[MysisRecord]) -> set[str]:
        """The provider types of these Myses and of the default provider (new Myses)."""
        names = {record.provider for record in records} | {self.config.swarm.default_provider}
        types: set[str] = set()
        for name in names:
            with contextlib.suppress(ConfigError):
                types.add(self.config.provider(name).type)
        return types

    def _provider(self, record: MysisRecord) -> Provider:
        if self._provider_factory is not None:
            return self._provider_factory(record)
        try:
            cfg = self.config.provider(record.provider)
            if record.model and record.model != cfg.model and cfg.has_model:
                cfg = replace(cfg, model=record.model)
            return build_provider(cfg)  # the runtime retries (one policy)
        except (ConfigError, ProviderError) as exc:
            return _BrokenProvider(record.provider, str(exc))

    # -- what watchers read ---------------------------------------------------------

    @property
    def closing(self) -> bool:
        """True once :meth:`shutdown` has begun: turns end at their next round."""
        return self._closed

    @property
    def arena_records(self) -> ArenaTables:
        """The arena's batches and runs, in this swarm's database: the arena screen plays
        and reads its batches here (a view reaches the store only through the commander)."""
        return self.store

    def myses(self) -> list[MysisView]:
        """Every Mysis, oldest first."""
        return [r.view() for r in sorted(self._myses.values(), key=lambda r: r.id)]

    def mysis(self, mysis_id: int) -> MysisView:
        """One Mysis (CommandRefused when it does not exist)."""
        return self._get(mysis_id).view()

    def provider_names(self) -> list[str]:
        """The configured providers, by name."""
        return list(self.config.providers)

    def add_provider(self, provider: ProviderConfig, *, source: Path | None = None) -> None:
        """Offer ``provider`` to new and configured Myses from now on (the add-provider form
        writes it to the config file ``source`` through ``config/edit.py``)."""
        if provider.name in self.config.providers:
            raise CommandRefused(f"a provider named {provider.name!r} exists already")
        providers = {**self.config.providers, provider.name: provider}
        self.config = replace(self.config, providers=providers, source=source or self.config.source)

    async def probe(self, provider: ProviderConfig, *, timeout: float = 30.0) -> ProbeReport:
        """What ``provider``'s endpoint can do for a swarm (``providers/probe.py``)."""
        from ..providers.probe import ProbeTarget, probe

        if not provider.is_remote or provider.endpoint is None:
            raise CommandRefused(f"provider {provider.name!r} has no endpoint to probe")
        try:
            key = resolve_api_key(provider)
        except ConfigError as exc:
            raise CommandRefused(str(exc)) from None
        target = ProbeTarget.of_provider(provider, key, timeout=timeout)
        return await probe(target)

    async def list_models(self, provider: str) -> list[str]:
        """The models provider ``provider`` can fly, its configured model first: what its
        server lists (quietly: empty when it lists none or does not answer); the local
        model; none for the autopilot."""
        try:
            cfg = self.config.provider(provider)
        except ConfigError:
            return []
        if not cfg.is_remote:
            return [cfg.model] if cfg.has_model else []
        try:
            client = build_provider(cfg)
        except (ConfigError, ProviderError):
            return []
        try:
            listed = await listed_models(client)
            return ordered_models(listed, cfg.model) if listed else []
        finally:
            await client.aclose()

    def commander_input(self) -> None:
        """The commander pressed a key or clicked: the swarm's next steps wait a moment,
        so what the key sets off is not queued behind them (:mod:`.step_gate`)."""
        self.services.step_gate.hold()

    def input_held_for(self) -> float:
        """Seconds the swarm's next steps still wait for the commander's last key."""
        return self.services.step_gate.held_for()

    def running_count(self) -> int:
        """How many Myses are running."""
        return sum(1 for r in self._myses.values() if r.state == "running")

    def state_counts(self) -> dict[str, int]:
        """Myses per state."""
        counts = {"running": 0, "idle": 0, "stopped": 0, "errored": 0}
        for runtime in self._myses.values():
            counts[runtime.state] = counts.get(runtime.state, 0) + 1
        return counts

    @property
    def game_tick(self) -> int | None:
        """The newest game tick seen."""
        return self.backend.current_tick if self.backend.embedded else self._tick

    @property
    def network(self) -> tuple[int, int]:
        """LLM and MCP calls in flight."""
        return self._llm, self._mcp

    def _prices_of(self, provider: str) -> Prices:
        """The prices of a provider by name (none for one no longer configured)."""
        found = self.config.providers.get(provider)
        return found.prices if found is not None else Prices()

    def spend(self) -> SwarmSpend:
        """What the swarm's model calls cost this run, and its rate now (``spend.py``)."""
        return self.services.spend.swarm()

    def spend_of(self, mysis_id: int) -> tuple[Bill, ...]:
        """The bills of a Mysis's newest requests this run, oldest first."""
        return self.services.spend.requests(mysis_id)

    def turn_since(self, mysis_id: int) -> int | None:
        """The first memory of the turn a Mysis has under way (None: none is): a call
        stored before it that has no result was cut, by a stop or a quit."""
        turn = self._get(mysis_id).turn
        return turn.first_memory_id if turn is not None else None

    async def memories(self, mysis_id: int, limit: int = 200) -> list[Memory]:
        """The newest ``limit`` memories of a Mysis, oldest first."""
        self._get(mysis_id)
        return await self.store.recent_memories(mysis_id, limit)

    async def turns(self, mysis_id: int, *, after_id: int = 0) -> list[Turn]:
        """The recorded turns of a Mysis that began after memory ``after_id``, oldest first."""
        self._get(mysis_id)
        return await self.store.list_turns(mysis_id, after_id=after_id)

    async def broadcasts(self, limit: int = 50) -> list[Broadcast]:
        """The newest broadcasts, oldest first."""
        return await self.store.recent_broadcasts(limit)

    # The snapshots below answer for a Mysis deleted a moment ago with nothing: a watcher
    # hears of a delete through the bus, after it happened, and may still ask meanwhile.

    def game_state(self, mysis_id: int) -> dict[str, Snapshot]:
        """The cached game results of a Mysis's account, by tool (empty once deleted)."""
        account = self._account_of(mysis_id)
        return self.cache.snapshots(account) if account else {}

    def game_fields(self, mysis_id: int) -> dict[str, Any]:
        """The merged game facts of a Mysis's account (``{key: {"value", "tick"}}``;
        empty once deleted)."""
        account = self._account_of(mysis_id)
        return self.cache.state(account) if account else {}

    def _account_of(self, mysis_id: int) -> str | None:
        runtime = self._myses.get(mysis_id)
        return runtime.router.account if runtime is not None else None

    def game_state_summary(self, mysis_id: int) -> str:
        """The compact projection of the Mysis's game state (shown after each turn's opening)."""
        return self._game_state_of(self._get(mysis_id).router.account)

    def _game_state_of(self, account: str | None) -> str:
        # None read back from before a relaunch (the cache's summary leaves it out), so
        # the next request is the one `zoea context` composes from the store.
        return self.cache.summary(account, self.game_tick)

    def last_sent(self, mysis_id: int) -> tuple[dict[str, Any], ...]:
        """The messages of the Mysis's last request sent (empty before its first and
        once deleted)."""
        runtime = self._myses.get(mysis_id)
        return runtime.last_sent if runtime is not None else ()

    async def checked_preview(self, mysis_id: int, strategy: str | None = None) -> CheckedRequest:
        """The Mysis's next request under ``strategy`` (:meth:`preview`) with the checks
        the engine makes before sending one: validated, and measured against the last
        request the Mysis sent (:func:`~zoea_tui.orchestrator.checked.check_request`)."""
        composition = await self.preview(mysis_id, strategy)
        return await check_request(composition, self.last_sent(mysis_id))

    async def preview(self, mysis_id: int, strategy: str | None = None) -> Composition:
        """The exact next request of a Mysis under ``strategy`` (nothing is written)."""
        runtime = self._get(mysis_id)
        name = strategy or runtime.record.strategy
        if name not in STRATEGIES:
            raise CommandRefused(f"unknown strategy {name!r}")
        settings, provider = self.services.fitted_settings(runtime.record)
        turn = await runtime.upcoming_turn()
        level = turn.nudge_level if turn.kind == "nudge" else 0
        settings = replace(settings, nudge_level=level)
        reader = await self.store.reader()  # reads only: never behind the swarm's writes

        async def attempt(mode: ToolsMode) -> Composition:
            # The tools the runtime sends in this mode (none known yet: none counted).
            return await next_composition(
                reader,
                mysis_id,
                name,
                runtime.with_tools(settings, mode),
                write_summary=False,
                game_state=self.game_state_summary(mysis_id),
                turn=turn,
            )

        # The tools by the runtime's rule; once it composed a request, its mode (an engine
        # that counts prompts may have taken full tools the estimate would not).
        setting = runtime.tools_mode or provider.tools
        try:
            composition, _ = await with_fitting_tools(
                setting, attempt, fell_back=runtime.tools_fell_back
            )
            return composition
        except ContextTooSmallError as exc:  # told where the preview would be
            raise CommandRefused(f"{runtime.name}: {exc}") from None

    # -- actions ----------------------------------------------------------------------

    async def create_mysis(
        self,
        name: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        strategy: str | None = None,
        start: bool = True,
        system_prompt: str | None = None,
    ) -> MysisView:
        """Create a Mysis (refused: empty or duplicate name, unknown provider, full swarm);
        ``system_prompt`` is its own template instead of the built-in one."""
        name = name.strip()
        if not name:
            return await self._refuse("a Mysis needs a name")
        if len(self._myses) >= self.config.swarm.max_myses:
            return await self._refuse(
                f"the swarm is full ({self.config.swarm.max_myses} "
                "Myses); delete one or raise swarm.max_myses"
            )
        provider = provider or self.config.swarm.default_provider
        if provider not in self.config.providers:
            return await self._refuse(
                f"unknown provider {provider!r}; configured: {', '.join(self.config.providers)}"
            )
        strategy = strategy or self.config.swarm.strategy
        if strategy not in STRATEGIES:
            return await self._refuse(f"unknown strategy {strategy!r}")
        try:
            record = await self.store.create_mysis(
                name,
                provider=provider,
                model=model or self.config.provider(provider).model,
                strategy=strategy,
                system_prompt=system_prompt,
            )
        except StoreError as exc:
            return await self._refuse(str(exc))
        runtime = self._runtime(record)
        self._myses[record.id] = runtime
        await runtime.changed("created")
        if start:
            await runtime.start()
        return runtime.view()

    async def configure_mysis(
        self,
        mysis_id: int,
        *,
        provider: str | None = None,
        model: str | None = None,
        strategy: str | None = None,
    ) -> MysisView:
        """Change provider, model or strategy live (the next request uses them)."""
        runtime = self._get(mysis_id)
        fields: dict[str, Any] = {}
        if provider is not None and provider != runtime.record.provider:
            if provider not in self.config.providers:
                return await self._refuse(f"unknown provider {provider!r}")
            fields["provider"] = provider
            fields["model"] = model or self.config.provider(provider).model
        elif model is not None:
            fields["model"] = model
        if strategy is not None:
            if strategy not in STRATEGIES:
                return await self._refuse(f"unknown strategy {strategy!r}")
            fields["strategy"] = strategy
        if not fields:
            return runtime.view()
        runtime.record = await self.store.update_mysis(mysis_id, **fields)
        if "provider" in fields or "model" in fields:
            old = runtime.provider
            runtime.provider = self._provider(runtime.record)
            runtime.provider_origin = self._origin(runtime.record.provider)
            runtime.tools_mode = None  # another engine: its context decides anew
            with contextlib.suppress(Exception):
                await old.aclose()
        await runtime.changed("configured")
        return runtime.view()

    async def start_mysis(self, mysis_id: int) -> MysisView:
        """Start a Mysis that is idle, stopped or errored."""
        runtime = self._get(mysis_id)
        await runtime.start()
        return runtime.view()

    relaunch_mysis = start_mysis

    async def stop_mysis(self, mysis_id: int) -> MysisView:
        """Stop a Mysis; it stays stopped until relaunched, even across launches."""
        runtime = self._get(mysis_id)
        if runtime.state == "stopped":
            return await self._refuse(f"{runtime.name} is already stopped")
        await runtime.stop()
        return runtime.view()

    async def delete_mysis(self, mysis_id: int) -> None:
        """Delete a Mysis: stop it, remove its memories, release its account."""
        runtime = self._get(mysis_id)
        await runtime.stop(timeout=2.0)
        await runtime.session.aclose()
        with contextlib.suppress(Exception):
            await runtime.provider.aclose()
        if runtime.router.account:
            self.cache.forget(runtime.router.account)
        await self.store.release_accounts(mysis_id)
        await self.store.delete_mysis(mysis_id)
        del self._myses[mysis_id]
        self.services.spend.forget(mysis_id)
        await self.bus.publish(MysisDeleted(mysis_id=mysis_id, name=runtime.name))

    async def send_message(self, mysis_id: int, text: str) -> None:
        """A direct message from the commander (refused for stopped/errored Myses)."""
        runtime = self._get(mysis_id)
        if not text.strip():
            await self._refuse("the message is empty")
        if runtime.state in ("stopped", "errored"):
            await self._refuse(
                f"{runtime.name} is {runtime.state}: press r to relaunch it "
                "before sending messages",
                mysis_id=mysis_id,
            )
        text = await self._without_secrets(text)
        await self._deliver(
            runtime, NewMemory("user", "direct", text, game_tick=self.game_tick), order=True
        )

    async def broadcast(self, text: str) -> int:
        """A commander broadcast to every idle or running Mysis; returns the recipients."""
        if not text.strip():
            await self._refuse("the broadcast is empty")
        return await self._broadcast(await self._without_secrets(text), sender=None)

    async def _without_secrets(self, text: str) -> str:
        """The commander's words with every pooled password masked: Zoea Nova fills
        them in at login, so none reaches a model, the memories or a view."""
        return mask_text(text, [a.password for a in await self.store.list_accounts()])

    # -- the router's side (SwarmPort) ------------------------------------------------------

    async def broadcast_from(self, mysis_id: int, text: str) -> int:
        """``zoea_broadcast``: a Mysis tells every other Mysis."""
        return await self._broadcast(text, sender=self._get(mysis_id))

    async def swarm_status(self, mysis_id: int) -> dict[str, Any]:
        """``zoea_swarm_status``: the swarm as a Mysis may see it (no secrets)."""
        return {
            "myses": [
                {
                    "id": v.id,
                    "name": v.name,
                    "state": v.state,
                    "account": v.account,
                    "activity": v.activity,
                    "you": v.id == mysis_id,
                }
                for v in self.myses()
            ],
            "game_tick": self.game_tick,
        }

    # -- helpers for runtimes ------------------------------------------------------------

    def settings_for(self, record: MysisRecord) -> tuple[ComposeSettings, ProviderSettings]:
        """Composition and provider settings for a Mysis's current provider."""
        try:
            cfg = self.config.provider(record.provider)
        except ConfigError:
            cfg = self.config.provider(self.config.swarm.default_provider)
        settings = self.config.compose_settings(cfg.name)
        chosen = provider_settings(cfg)
        if chosen.turn_rounds is None:
            chosen = replace(chosen, turn_rounds=self.config.context.max_tool_iterations)
        if record.model and cfg.has_model:
            chosen = replace(chosen, model=record.model)
        return settings, chosen

    @contextlib.asynccontextmanager
    async def in_flight(self, kind: str) -> AsyncIterator[None]:
        """Count an LLM or MCP call in flight (for the status bar)."""
        await self._net(kind, +1)
        try:
            yield
        finally:
            await self._net(kind, -1)

    async def _net(self, kind: str, delta: int) -> None:
        if kind == "llm":
            self._llm += delta
        else:
            self._mcp += delta
        await self.bus.publish(NetworkActivity(llm=self._llm, mcp=self._mcp))

    def _turn_finished(self, mysis_id: int, turns: int) -> None:
        """A Mysis ended its ``turns``-th turn (headless runs count them)."""
        runtime = self._myses.get(mysis_id)
        self.retention.turn_finished()
        if self.on_turn is not None and runtime is not None:
            self.on_turn(runtime)

    def _watch_clock(self) -> None:
        """Report every tick of the embedded world's real-time clock (a remote server's
        tick is known only from its results; a simulated clock moves only when asked)."""
        host = self.backend.host
        if host is None or host.simulated or self._clock_watch is not None:
            return

        async def follow() -> None:
            while True:
                await host.wait_for_tick(host.current_tick + 1)
                await self.saw_tick(host.current_tick)

        self._clock_watch = asyncio.create_task(follow(), name="game-clock-watch")

    async def saw_tick(self, tick: int) -> None:
        """A game result reported ``tick``."""
        if self._tick is None or tick > self._tick:
            self._tick = tick
            await self.bus.publish(GameTick(tick=tick))

    # -- internals -----------------------------------------------------------------------

    def _get(self, mysis_id: int) -> MysisRuntime:
        runtime = self._myses.get(mysis_id)
        if runtime is None:
            raise CommandRefused(f"no Mysis with id {mysis_id}")
        return runtime

    async def _refuse(self, message: str, *, mysis_id: int | None = None) -> NoReturn:
        await self.bus.publish(Notice(level="error", message=message, mysis_id=mysis_id))
        raise CommandRefused(message)

    async def _deliver(self, runtime: MysisRuntime, memory: NewMemory, *, order: bool) -> None:
        """Store a prompt for ``runtime`` and wake it; an ``order`` is the commander's
        word (a Mysis's broadcast is news: ``MysisRuntime.deliver``)."""
        stored = await self.store.add_memory(runtime.id, memory)
        await self.bus.publish(MessageStored(mysis_id=runtime.id, memory=stored))
        if runtime.state == "idle":
            await runtime.start(prompt=True)
        else:
            runtime.deliver(order=order)

    async def _broadcast(self, text: str, *, sender: MysisRuntime | None) -> int:
        sender_id = str(sender.id) if sender is not None else None
        record = await self.store.add_broadcast(text, sender_id=sender_id, game_tick=self.game_tick)
        recipients = [
            r for r in self._myses.values() if r.state in ("idle", "running") and r is not sender
        ]
        for runtime in recipients:
            await self._deliver(
                runtime,
                NewMemory("user", "broadcast", text, sender_id=sender_id, game_tick=self.game_tick),
                order=sender is None,
            )
        await self.bus.publish(
            BroadcastSent(
                broadcast_id=record.id,
                sender_id=sender.id if sender else None,
                sender_name=sender.name if sender else "commander",
                content=text,
                recipients=tuple(r.id for r in recipients),
            )
        )
        if not recipients and sender is None:
            await self.bus.publish(
                Notice(
                    level="warning",
                    message="no Mysis is idle or running: the broadcast was stored for later",
                )
            )
        return len(recipients)


class _BrokenProvider:
    """Stands in for a provider that cannot be built: every call fails clearly."""

    def __init__(self, name: str, reason: str) -> None:
        self.label = f"{name} (unavailable)"
        self.reason = reason

    async def chat(self, request: Any, on_event: Any = None) -> Any:
        raise ProviderError(self.reason)

    async def aclose(self) -> None:
        return None
