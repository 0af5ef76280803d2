"""Russian numerals in printed text: «1 слияние», «3 слияния», «72 токена», «54 байта»."""


def plural(n: int, one: str, few: str, many: str) -> str:
    """The form of a noun after the number n: plural(1, "токен", "токена", "токенов") == "токен"."""
    n = abs(int(n))
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def count(n: int, one: str, few: str, many: str) -> str:
    """The number with its noun, digits grouped by thin spaces: count(100000, "слияние", "слияния",
    "слияний") == "100 000 слияний"."""
    return f"{n:,}".replace(",", "\u202f") + " " + plural(n, one, few, many)
