"""The vendored tiktoken vocabularies: checked by hash, loaded with the network off."""

import hashlib
import socket

import pytest

from bpe_course import vocab


@pytest.mark.parametrize("name", sorted(vocab.SHA256))
def test_vendored_vocabulary_matches_its_hash(name):
    data = vocab.data_path(f"tiktoken/{name}.tiktoken").read_bytes()
    assert hashlib.sha256(data).hexdigest() == vocab.SHA256[name]


def test_our_hashes_are_the_ones_tiktoken_expects():
    import inspect

    from tiktoken_ext import openai_public

    source = inspect.getsource(openai_public)
    for sha in vocab.SHA256.values():
        assert sha in source


def test_tiktoken_loads_offline(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise OSError("network is off in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    import tiktoken

    vocab.offline_tiktoken(tmp_path)
    for name, text, n_tokens in [
        ("r50k_base", "hello world", 2),
        ("cl100k_base", "hello world", 2),
        ("o200k_base", "hello world", 2),
    ]:
        enc = tiktoken.get_encoding(name)
        ids = enc.encode(text)
        assert len(ids) == n_tokens and enc.decode(ids) == text
    enc = tiktoken.get_encoding("o200k_base")
    for text in ["Привет, мир!", "цена 250 ₽ или 3,50 €", "🙂👍🏽"]:
        assert enc.decode(enc.encode(text)) == text


def test_damaged_vocabulary_is_refused_with_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "tiktoken").mkdir()
    for name in vocab.SHA256:
        (tmp_path / "tiktoken" / f"{name}.tiktoken").write_bytes(b"damaged")
    monkeypatch.setattr("bpe_course.paths.DATA_DIR", tmp_path)
    with pytest.raises(vocab.VocabularyError, match="damaged"):
        vocab.offline_tiktoken(tmp_path / "cache")


def test_tiny_shakespeare_is_the_public_data_set_unchanged():
    """data/tinyshakespeare.txt is vendored as published (provenance in data/README.md)."""
    data = vocab.data_path("tinyshakespeare.txt").read_bytes()
    assert len(data) == 1_115_394
    assert hashlib.sha256(data).hexdigest() == "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
