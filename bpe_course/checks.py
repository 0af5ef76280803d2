"""Comparisons for test cells.

Each check states what was called, what was expected and what came back, plus a hint about
the likely mistake, in Russian. Containers are compared element by element and in order (a dict
subclass such as Counter is fine when its order is right); single values must have exactly the
expected type, so an object that claims to be equal to everything does not pass.
"""
import signal
import threading
from contextlib import contextmanager


class CheckFailed(AssertionError):
    pass


def _same(got, expected) -> bool:
    if isinstance(expected, (dict, list, tuple)):
        if not isinstance(got, type(expected)):
            return False
    elif type(got) is not type(expected):
        return False
    if isinstance(expected, dict):
        return len(got) == len(expected) and all(
            _same(gk, ek) and _same(gv, ev)
            for (gk, gv), (ek, ev) in zip(got.items(), expected.items()))
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(_same(g, e) for g, e in zip(got, expected))
    return bool(expected == got)


def _short(value, limit=300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"… (всего {len(text)} символов)"


def check_equal(got, expected, call: str, hint: str = "") -> None:
    """Fail with a readable message unless got equals expected (same types, same order)."""
    if _same(got, expected):
        return
    lines = [f"{call}", f"  ожидалось: {_short(expected)}", f"  получено:  {_short(got)}"]
    if not isinstance(got, type(expected)):
        lines.append(f"  (тип результата {type(got).__name__}, а нужен {type(expected).__name__})")
    if hint:
        lines.append(f"Подсказка: {hint}")
    raise CheckFailed("\n".join(lines))


def check(condition: bool, message: str) -> None:
    """Fail with message unless condition holds."""
    if not condition:
        raise CheckFailed(message)



class _TookTooLong(Exception):
    pass


@contextmanager
def _time_limit(seconds: float):
    """Interrupt the block after `seconds` (where the platform has SIGALRM and we are in the main thread)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise _TookTooLong

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(fn, *args, hint: str = "", seconds: float = 10):
    """fn(*args), with a crash or an endless loop turned into a readable failure.

    NotImplementedError passes through, so an untouched exercise says that it is not written yet.
    """
    call = f"{getattr(fn, '__name__', 'функция')}({', '.join(_short(a, 80) for a in args)})"
    suffix = f"\nПодсказка: {hint}" if hint else ""
    try:
        with _time_limit(seconds):
            return fn(*args)
    except NotImplementedError:
        raise
    except _TookTooLong:
        raise CheckFailed(f"{call} не завершилась за {seconds:g} с: похоже, цикл не останавливается" + suffix) from None
    except Exception as e:
        raise CheckFailed(f"{call} завершилась с ошибкой {type(e).__name__}: {e}" + suffix) from None
