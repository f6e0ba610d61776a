"""The one redaction: known secrets and secrets' fields masked in every form they travel."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zoea_tui.core.redaction import (
    PASSWORD_MASK,
    SESSION_MASK,
    TOKEN_MASK,
    mask_data,
    mask_text,
    secret_mask,
)

PASSWORD = "9f2c4e1ab07d36c58e1f"
SESSION = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
RESULT = {
    "username": "ada",
    "password": PASSWORD,
    "session_id": SESSION,
    "player": {"credits": 1000, "access_token": "tok-123456"},
    "tokens": 12,
    "max_tokens": "4000",
    "message": "Save your password now.",
}


def _hidden(text: str) -> None:
    assert PASSWORD not in text and SESSION not in text and "tok-123456" not in text


def test_secret_fields_are_named_by_their_ending_in_any_case() -> None:
    assert secret_mask("password") == secret_mask("Password") == PASSWORD_MASK
    assert secret_mask("session_id") == secret_mask("sessionId") == SESSION_MASK
    for name in ("token", "access_token", "api_key", "apiKey", "clientSecret", "Authorization"):
        assert secret_mask(name) == TOKEN_MASK, name
    for name in ("tokens", "max_tokens", "username", "session", "passenger", "message"):
        assert secret_mask(name) is None, name


@pytest.mark.parametrize(
    "form",
    [
        "json",
        "json without spaces",
        "repr",
        "json in a json string",
        "json in a logged request",
    ],
)
def test_every_form_of_a_result_shows_the_masks_not_the_values(form: str) -> None:
    text = {
        "json": json.dumps(RESULT),
        "json without spaces": json.dumps(RESULT, separators=(",", ":")),
        "repr": repr(RESULT),
        "json in a json string": json.dumps(json.dumps(RESULT)),
        "json in a logged request": json.dumps(
            {"tool_calls": [{"function": {"arguments": json.dumps(RESULT)}}]}
        ),
    }[form]
    masked = mask_text(text)
    _hidden(masked)
    assert PASSWORD_MASK in masked and SESSION_MASK in masked and TOKEN_MASK in masked
    # Everything else is kept as it was.
    assert "Save your password now." in masked and "4000" in masked and "ada" in masked


def test_json_stays_json_and_only_the_secrets_change() -> None:
    masked = json.loads(mask_text(json.dumps(RESULT)))
    assert masked == {
        **RESULT,
        "password": PASSWORD_MASK,
        "session_id": SESSION_MASK,
        "player": {"credits": 1000, "access_token": TOKEN_MASK},
    }
    assert mask_data(RESULT) == masked


def test_a_value_with_escaped_quotes_is_masked_whole() -> None:
    data = {"password": 'ab"cd\\ef"gh', "after": "shown"}
    for text in (json.dumps(data), json.dumps(json.dumps(data))):
        masked = mask_text(text)
        assert "cd" not in masked and "gh" not in masked and "shown" in masked, masked


def test_text_cut_inside_a_secret_shows_none_of_it() -> None:
    text = json.dumps(RESULT)
    cut = text[: text.index(PASSWORD) + 7]
    assert mask_text(cut).endswith(PASSWORD_MASK)
    assert PASSWORD[:7] not in mask_text(cut)


def test_known_values_are_masked_wherever_they_stand() -> None:
    text = f"my password is {PASSWORD}, remember {PASSWORD.upper()}? no: {PASSWORD}."
    assert mask_text(text, [PASSWORD]) == (
        f"my password is {PASSWORD_MASK}, remember {PASSWORD.upper()}? no: {PASSWORD_MASK}."
    )
    assert mask_text("key sk-123456 here", ["sk-123456"], mask=TOKEN_MASK) == (
        f"key {TOKEN_MASK} here"
    )
    # A value inside a longer one: the longer is masked whole.
    assert mask_text("abcdefgh", ["abcd", "abcdefgh"]) == PASSWORD_MASK
    # Too short to mask without wrecking the text.
    assert mask_text("a b c", ["a"]) == "a b c"


def test_prose_about_secrets_and_unquoted_names_are_left_alone() -> None:
    for text in (
        "Never invent a session id or password: the client logs you in.",
        "Call login(username, password), or register.",
        '{"tokens": 5, "note": "token budget"}',
        '{"password": ""}',
        f'{{"password": "{PASSWORD_MASK}"}}',
    ):
        assert mask_text(text) == text


def test_positions_hold_in_text_whose_lower_case_is_longer() -> None:
    text = json.dumps({"İİİ": "x", "password": PASSWORD, "z": "kept"}, ensure_ascii=False)
    masked = mask_text(text)
    _hidden(masked)
    assert json.loads(masked) == {"İİİ": "x", "password": PASSWORD_MASK, "z": "kept"}


@given(
    st.text(max_size=40).filter(lambda v: v and "\n" not in v),
    st.sampled_from(["json", "repr", "nested"]),
)
def test_any_value_of_a_secret_field_is_hidden_in_every_form(value: str, form: str) -> None:
    data = {"note": "x", "session_id": value, "after": "y"}
    forms = {"json": json.dumps, "repr": repr, "nested": lambda d: json.dumps(json.dumps(d))}
    text = forms[form](data)
    masked = mask_text(text)
    assert SESSION_MASK in masked, masked
    if form == "repr":
        assert masked.endswith("'after': 'y'}")
    elif form == "json":
        assert json.loads(masked) == {**data, "session_id": SESSION_MASK}
    else:
        assert json.loads(json.loads(masked)) == {**data, "session_id": SESSION_MASK}


def test_a_repr_quotes_a_value_its_own_way() -> None:
    masked = mask_text(repr({"session_id": "it's", "after": "y"}))
    assert masked == f"""{{'session_id': "{SESSION_MASK}", 'after': 'y'}}"""
    assert mask_text('{"session_id": 5}') == '{"session_id": 5}'
    assert mask_text('{"session_id": ') == '{"session_id": '
