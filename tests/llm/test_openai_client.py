"""The OpenAI-compatible client against a real local HTTP server with scripted replies."""

from __future__ import annotations

import logging
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from fake_openai import FakeOpenAI, completion, free_port_refusing
from pydantic import BaseModel

from salience.clock import FrozenClock
from salience.errors import LLMError, ProviderUnavailable
from salience.llm.base import InteractionRecord, LLMUnavailable
from salience.llm.openai import OpenAICompatibleLLM, safe_url
from salience.llm.prompts import TRIAGE_GBNF, TriageAnswer, UsefulnessAnswer

KEY = "sk-test-SECRET-0123456789"


class Pair(BaseModel):
    name: str
    count: int


def client(
    fake_url: str, sleeps, records: list[InteractionRecord] | None = None, **kw
) -> OpenAICompatibleLLM:
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout_s", 5.0)
    return OpenAICompatibleLLM(
        base_url=fake_url,
        model="fake-model",
        api_key=KEY,
        sleep=sleeps,
        rng=random.Random(7),
        on_call=records.append if records is not None else None,
        **kw,
    )


# -- valid answers ------------------------------------------------------------------------------


def test_valid_json_is_parsed_and_the_request_is_well_formed(fake: FakeOpenAI, sleeps) -> None:
    records: list[InteractionRecord] = []
    fake.reply_json({"name": "Anna", "count": 3})
    llm = client(fake.url, sleeps, records)
    out = llm.complete_json("count things", Pair, call_site="quality", system="be terse")
    assert out == Pair(name="Anna", count=3)
    assert sleeps.calls == []
    (req,) = fake.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.body["model"] == "fake-model"
    assert req.body["messages"] == [
        {"role": "system", "content": "be terse"},
        {"role": "user", "content": "count things"},
    ]
    fmt = req.body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Pair"
    assert fmt["json_schema"]["schema"]["required"] == ["name", "count"]
    assert req.body["chat_template_kwargs"] == {"enable_thinking": False}
    assert req.body["temperature"] == 0.0
    assert "grammar" not in req.body
    (rec,) = records
    assert (rec.call_site, rec.provider, rec.model, rec.outcome) == (
        "quality",
        "openai",
        "fake-model",
        "ok",
    )
    assert (rec.prompt_tokens, rec.completion_tokens, rec.total_tokens) == (11, 7, 18)
    assert rec.prompt_chars == len("be terse") + len("count things")
    assert rec.output_chars == len('{"name": "Anna", "count": 3}')
    assert rec.attempts == 1 and rec.error is None and rec.latency_ms >= 0


def test_thinking_flag_follows_the_call(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_content("<think>hmm, let me see</think>The answer is 42.")
    llm = client(fake.url, sleeps)
    assert llm.complete("question", thinking=True, call_site="reflection") == "The answer is 42."
    assert fake.requests[0].body["chat_template_kwargs"] == {"enable_thinking": True}
    assert "temperature" not in fake.requests[0].body  # free text keeps the server default


def test_soft_switch_and_none_thinking_controls(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_content("ok")
    fake.reply_content("ok")
    client(fake.url, sleeps, thinking_control="soft_switch").complete(
        "hi", thinking=False, call_site="x"
    )
    client(fake.url, sleeps, thinking_control="none").complete("hi", thinking=True, call_site="x")
    first, second = (r.body for r in fake.requests)
    assert first["messages"][-1]["content"].endswith("/no_think")
    assert "chat_template_kwargs" not in first
    assert second["messages"][-1]["content"] == "hi"
    assert "chat_template_kwargs" not in second


def test_auto_thinking_control_is_off_for_openai_com() -> None:
    llm = OpenAICompatibleLLM(base_url="https://api.openai.com/v1", model="gpt-4o-mini")
    assert llm.thinking_control == "none"
    local = OpenAICompatibleLLM(base_url="http://127.0.0.1:11434/v1", model="qwen3")
    assert local.thinking_control == "chat_template_kwargs"


def test_grammar_replaces_the_json_schema_when_enabled(fake: FakeOpenAI, sleeps) -> None:
    answer = {
        "salience": 7,
        "summary": "Likes tea.",
        "memory_type": "preference",
        "tags": ["food"],
        "entities": [],
        "save": True,
    }
    fake.reply_json(answer)
    fake.reply_json(answer)
    with_grammar = client(fake.url, sleeps, grammar=True)
    without = client(fake.url, sleeps, grammar=False)
    assert (
        with_grammar.complete_json(
            "t", TriageAnswer, call_site="triage", grammar=TRIAGE_GBNF
        ).salience
        == 7
    )
    assert (
        without.complete_json("t", TriageAnswer, call_site="triage", grammar=TRIAGE_GBNF).salience
        == 7
    )
    a, b = (r.body for r in fake.requests)
    assert a["grammar"] == TRIAGE_GBNF and "response_format" not in a
    assert "grammar" not in b and b["response_format"]["json_schema"]["name"] == "TriageAnswer"


def test_complete_grammar_sends_the_grammar(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_content('{"answer": "YES"}')
    out = client(fake.url, sleeps).complete_grammar("q", 'root ::= "x"', call_site="usefulness")
    assert out == '{"answer": "YES"}'
    assert fake.requests[0].body["grammar"] == 'root ::= "x"'


# -- malformed output -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        '```json\n{"answer": "yes",}\n```',
        'Sure! Here is my verdict: {"answer": "NO"} Hope that helps.',
        '<think>The memory mentions peanuts {maybe}</think>\n{"answer": "YES"}',
        '{"answer": "YES", "why": "the response uses it",\n}',
    ],
)
def test_malformed_but_repairable_json(fake: FakeOpenAI, sleeps, content: str) -> None:
    fake.reply_content(content)
    out = client(fake.url, sleeps).complete_json("q", UsefulnessAnswer, call_site="usefulness")
    assert out.answer in ("YES", "NO")
    assert len(fake.requests) == 1  # repair is local: no second request


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("I am sorry, I cannot judge that.", "no JSON object"),
        ('{"answer": "YES"', "no JSON object"),
        ('{"answer": YES}', "malformed JSON"),
    ],
)
def test_irreparable_json_fails_with_llm_error(
    fake: FakeOpenAI, sleeps, content: str, message: str
) -> None:
    records: list[InteractionRecord] = []
    fake.reply_content(content)
    with pytest.raises(LLMError, match=message):
        client(fake.url, sleeps, records).complete_json(
            "q", UsefulnessAnswer, call_site="usefulness"
        )
    assert records[0].outcome == "error" and message in (records[0].error or "")
    assert records[0].output_chars == len(content)


def test_truncated_answer_says_it_was_cut_off(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(200, completion('{"answer": "Y', finish="length"))
    with pytest.raises(LLMError, match="cut off"):
        client(fake.url, sleeps).complete_json("q", UsefulnessAnswer, call_site="usefulness")


def test_wrong_schema_fails_with_the_validation_message(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json({"name": "Anna"})
    fake.reply_json({"answer": "MAYBE"})
    llm = client(fake.url, sleeps)
    with pytest.raises(LLMError, match=r"does not match Pair: count: Field required"):
        llm.complete_json("q", Pair, call_site="quality")
    with pytest.raises(LLMError, match=r"UsefulnessAnswer: answer: Input should be 'YES' or 'NO'"):
        llm.complete_json("q", UsefulnessAnswer, call_site="usefulness")


def test_empty_content_and_bad_envelope_fail(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(
        200, {"choices": [{"message": {"content": None, "reasoning_content": "thinking..."}}]}
    )
    fake.reply(200, {"unexpected": True})
    fake.reply(200, "<html>proxy page</html>")
    llm = client(fake.url, sleeps)
    with pytest.raises(LLMError, match="only reasoning"):
        llm.complete("q", thinking=True, call_site="reflection")
    with pytest.raises(LLMError, match=r"choices\[0\]"):
        llm.complete("q", thinking=False, call_site="x")
    with pytest.raises(LLMError, match="not JSON"):
        llm.complete("q", thinking=False, call_site="x")
    assert sleeps.calls == []  # none of these is retried


# -- transport faults and retries ---------------------------------------------------------------


def test_timeout_is_retried_then_fails_as_unavailable(fake: FakeOpenAI, sleeps) -> None:
    records: list[InteractionRecord] = []
    fake.reply(hang=True)
    fake.reply(hang=True)
    llm = client(fake.url, sleeps, records, timeout_s=0.2, max_retries=1)
    with pytest.raises(LLMUnavailable, match="timed out") as exc:
        llm.complete("q", thinking=False, call_site="triage")
    assert isinstance(exc.value, LLMError) and isinstance(exc.value, ProviderUnavailable)
    assert "gave up after 2 attempts" in str(exc.value)
    assert len(fake.requests) == 2
    assert len(sleeps.calls) == 1
    assert records[0].attempts == 2 and records[0].outcome == "error"


def test_timeout_then_success(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(hang=True)
    fake.reply_content("fine")
    assert (
        client(fake.url, sleeps, timeout_s=0.2).complete("q", thinking=False, call_site="x")
        == "fine"
    )
    assert len(sleeps.calls) == 1


def test_429_honours_retry_after_seconds(fake: FakeOpenAI, sleeps) -> None:
    records: list[InteractionRecord] = []
    fake.reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "7"})
    fake.reply_json({"name": "x", "count": 1})
    out = client(fake.url, sleeps, records).complete_json("q", Pair, call_site="rerank")
    assert out.count == 1
    assert sleeps.calls == [7.0]
    assert records[0].attempts == 2 and records[0].outcome == "ok"


def test_429_honours_retry_after_http_date(fake: FakeOpenAI, sleeps) -> None:
    clock = FrozenClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    when = format_datetime(clock.now() + timedelta(seconds=30), usegmt=True)
    fake.reply(429, {}, headers={"Retry-After": when})
    fake.reply_content("ok")
    assert (
        client(fake.url, sleeps, clock=clock).complete("q", thinking=False, call_site="x") == "ok"
    )
    assert sleeps.calls == [30.0]


def test_429_with_a_long_retry_after_fails_at_once(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(429, {}, headers={"Retry-After": "3600"})
    with pytest.raises(LLMError, match="retry after 3600 s"):
        client(fake.url, sleeps).complete("q", thinking=False, call_site="x")
    assert sleeps.calls == [] and len(fake.requests) == 1


def test_429_without_retry_after_backs_off(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(429, {})
    fake.reply_content("ok")
    client(fake.url, sleeps, backoff_base_s=1.0).complete("q", thinking=False, call_site="x")
    assert len(sleeps.calls) == 1 and 0.5 <= sleeps.calls[0] <= 1.0


def test_500_then_success(fake: FakeOpenAI, sleeps) -> None:
    records: list[InteractionRecord] = []
    fake.reply(500, {"error": {"message": "CUDA out of memory"}})
    fake.reply(503, "upstream busy")
    fake.reply_json({"name": "ok", "count": 2})
    out = client(fake.url, sleeps, records, backoff_base_s=0.5).complete_json(
        "q", Pair, call_site="triage"
    )
    assert out.count == 2
    assert len(sleeps.calls) == 2
    assert 0.25 <= sleeps.calls[0] <= 0.5 and 0.5 <= sleeps.calls[1] <= 1.0  # exponential + jitter
    assert records[0].attempts == 3 and records[0].outcome == "ok"


def test_persistent_500_gives_up_with_the_server_message(fake: FakeOpenAI, sleeps) -> None:
    for _ in range(3):
        fake.reply(500, {"error": {"message": "model crashed"}})
    with pytest.raises(
        LLMError, match=r"HTTP 500: model crashed \(gave up after 3 attempts\)"
    ) as exc:
        client(fake.url, sleeps, max_retries=2).complete("q", thinking=False, call_site="x")
    assert not isinstance(exc.value, LLMUnavailable)
    assert len(fake.requests) == 3 and len(sleeps.calls) == 2


def test_client_errors_are_not_retried(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(400, {"error": {"message": "Unrecognized request argument: chat_template_kwargs"}})
    with pytest.raises(LLMError, match="HTTP 400: Unrecognized request argument"):
        client(fake.url, sleeps).complete("q", thinking=False, call_site="x")
    assert len(fake.requests) == 1 and sleeps.calls == []


def test_connection_refused_retries_with_growing_backoff(sleeps) -> None:
    port = free_port_refusing()
    records: list[InteractionRecord] = []
    llm = client(f"http://127.0.0.1:{port}/v1", sleeps, records, max_retries=3, backoff_base_s=0.5)
    with pytest.raises(
        LLMUnavailable, match=r"cannot reach http://127\.0\.0\.1:\d+/v1/chat/completions"
    ):
        llm.complete("q", thinking=False, call_site="triage")
    assert len(sleeps.calls) == 3
    for attempt, delay in enumerate(sleeps.calls):
        step = 0.5 * 2**attempt
        assert step / 2 <= delay <= step
    assert records[0].attempts == 4 and records[0].outcome == "error"


def test_zero_retries_means_one_attempt(sleeps) -> None:
    port = free_port_refusing()
    with pytest.raises(LLMUnavailable, match="gave up after 1 attempt\\)"):
        client(f"http://127.0.0.1:{port}/v1", sleeps, max_retries=0).complete(
            "q", thinking=False, call_site="x"
        )
    assert sleeps.calls == []


# -- secrets, recorder --------------------------------------------------------------------------


def test_the_api_key_is_never_logged_or_shown(
    fake: FakeOpenAI, sleeps, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake.reply(500, {"error": {"message": "bad"}})
    fake.reply_content("ok")
    fake.reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})
    llm = client(fake.url, sleeps)
    llm.complete("q", thinking=False, call_site="x")
    with pytest.raises(LLMError) as exc:
        llm.complete("q", thinking=False, call_site="x")
    assert "HTTP 401" in str(exc.value) and "***" in str(exc.value)
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent...
    shown = [caplog.text, str(exc.value), repr(llm), str(llm.status())]
    assert all(KEY not in s for s in shown)  # ...and never shown


def test_credentials_in_the_url_are_not_shown() -> None:
    assert (
        safe_url("https://user:pw@llm.example.com:8443/v1?x=1") == "https://llm.example.com:8443/v1"
    )
    llm = OpenAICompatibleLLM(base_url="https://user:pw@llm.example.com/v1", model="m")
    assert "pw" not in repr(llm) and "pw" not in (llm.status().base_url or "")


def test_a_failing_recorder_does_not_fail_the_call(fake: FakeOpenAI, sleeps) -> None:
    def broken(record: InteractionRecord) -> None:
        raise RuntimeError("disk full")

    fake.reply_content("ok")
    llm = OpenAICompatibleLLM(base_url=fake.url, model="m", on_call=broken, sleep=sleeps)
    assert llm.complete("q", thinking=False, call_site="x") == "ok"


def test_records_are_stamped_by_the_injected_clock(fake: FakeOpenAI, sleeps) -> None:
    clock = FrozenClock(datetime(2026, 5, 1, tzinfo=UTC))
    records: list[InteractionRecord] = []
    fake.reply_content("ok", usage={})
    client(fake.url, sleeps, records, clock=clock).complete(
        "q", thinking=True, call_site="reflection"
    )
    assert records[0].started_at == clock.now()
    assert records[0].thinking is True
    assert records[0].prompt_tokens is None  # unknown usage stays unknown


def test_status_reports_a_real_model(fake: FakeOpenAI) -> None:
    s = OpenAICompatibleLLM(base_url=fake.url, model="qwen3-8b", grammar=True).status()
    assert (s.provider, s.model, s.heuristic, s.grammar) == ("openai", "qwen3-8b", False, True)
    assert s.thinking["reflection"] is True and s.thinking["triage"] is False
