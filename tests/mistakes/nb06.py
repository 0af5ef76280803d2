"""Mistakes and alternative solutions for notebook 06_vocab_size."""
from . import Alternative, Mistake

NB06 = "06_vocab_size"

MISTAKES = [
    Mistake("nb06_embedding_forgets_untied_head", NB06, "embedding_params", '''
def embedding_params(vocab_size, d_model, tied=True):
    return vocab_size * d_model          # the output projection of an untied model is missing''',
            "test_embedding_params", "выходной проекции"),
    Mistake("nb06_bytes_per_token_on_characters", NB06, "bytes_per_token", '''
def bytes_per_token(text, ids):
    if not ids:
        raise ValueError("нет токенов")
    return len(text) / len(ids)          # characters, not UTF-8 bytes''',
            "test_bytes_per_token", "байты UTF-8, а не символы"),
    Mistake("nb06_bytes_per_token_inverted", NB06, "bytes_per_token", '''
def bytes_per_token(text, ids):
    if not ids:
        raise ValueError("нет токенов")
    return len(ids) / len(text.encode("utf-8"))   # tokens per byte''',
            "test_bytes_per_token", "отношение перевёрнуто"),
    Mistake("nb06_bytes_per_token_floor_division", NB06, "bytes_per_token", '''
def bytes_per_token(text, ids):
    if not ids:
        raise ValueError("нет токенов")
    return len(text.encode("utf-8")) // len(ids)''',
            "test_bytes_per_token", "а не целочисленным //"),
    Mistake("nb06_bytes_per_token_zero_division", NB06, "bytes_per_token", '''
def bytes_per_token(text, ids):
    return len(text.encode("utf-8")) / len(ids)    # ZeroDivisionError on empty ids''',
            "test_bytes_per_token", "должна бросить ValueError"),
    Mistake("nb06_experiment_uses_a_prefix_table", NB06, "english_experiment", '''
MEASURED = bytes_per_token(en_text, encode_chunked(en_text, first_merges(merges, 1024)))
print(f"английский текст, наш русский словарь: {MEASURED:.2f} байта на токен")''',
            "test_english_experiment_hidden", "с полной таблицей merges"),
]

ALTERNATIVES = [
    Alternative("nb06_embedding_params_multiplier", NB06, "embedding_params", '''
def embedding_params(vocab_size, d_model, tied=True):
    return vocab_size * d_model * (1 if tied else 2)'''),
    Alternative("nb06_bytes_per_token_bytes_call", NB06, "bytes_per_token", '''
def bytes_per_token(text, ids):
    if len(ids) == 0:
        raise ValueError("пустой список токенов")
    return len(bytes(text, "utf-8")) / len(ids)'''),
    Alternative("nb06_experiment_in_two_steps", NB06, "english_experiment", '''
en_ids = encode_chunked(en_text, merges)
MEASURED = bytes_per_token(en_text, en_ids)'''),
]
