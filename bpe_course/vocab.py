"""The tiktoken vocabularies, vendored under data/tiktoken and used without the network.

tiktoken downloads its vocabularies on first use and caches each file under the SHA-1 of its
URL in TIKTOKEN_CACHE_DIR. We verify our copies against the SHA-256 that tiktoken itself expects
and seed such a cache, so that plain `tiktoken.get_encoding("cl100k_base")` works offline.
"""

import hashlib
import os
import tempfile
from pathlib import Path

from .paths import data_path

URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
SHA256 = {  # the expected_hash values of tiktoken_ext/openai_public.py
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


class VocabularyError(RuntimeError):
    """A vendored vocabulary is missing or does not match its hash."""


def verified_bytes(name: str) -> bytes:
    """The contents of data/tiktoken/NAME.tiktoken, after checking its SHA-256."""
    data = data_path(f"tiktoken/{name}.tiktoken").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[name]:
        raise VocabularyError(
            f"data/tiktoken/{name}.tiktoken is damaged: sha256 {digest}, expected {SHA256[name]}. "
            f"Restore it with `git checkout -- data/tiktoken` (provenance: data/tiktoken/README.md)."
        )
    return data


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"bpe-course-tiktoken-{os.getuid() if hasattr(os, 'getuid') else 'user'}"


def offline_tiktoken(cache_dir=None) -> Path:
    """Seed tiktoken's cache with the verified vocabularies and point TIKTOKEN_CACHE_DIR at it."""
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    for name in SHA256:
        target = cache / hashlib.sha1(URL.format(name=name).encode()).hexdigest()
        data = verified_bytes(name)
        if not target.exists() or target.read_bytes() != data:
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(target)  # atomic: parallel graders never see half a file
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return cache
