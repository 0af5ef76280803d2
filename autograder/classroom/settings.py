"""The settings that change a grade, in one place: they key the result cache and go into grading.json.

Every configurable trait of the classes that grade (the pipeline, the evaluator, the kernel session,
the sandbox) as the configuration sets it, and the walls the sandbox really gets on this machine
(bubblewrap or limits only). A notebook graded under other settings (`--notebook-timeout 2`,
`--no-sandbox`, a new time limit) is graded again instead of served from the cache.
"""

import hashlib
import json


def grading_classes() -> tuple:
    """The configurable classes whose settings change a grade."""
    from ..notebook.evaluate import Evaluator
    from ..notebook.pipeline import NotebookGrader
    from ..wall.sandbox import Sandbox
    from ..wall.session import KernelSession

    return NotebookGrader, Evaluator, KernelSession, Sandbox


def setting(config, cls, name: str):
    """The effective value of one setting: from `config` (autograder.course.course.load_config), else
    the traitlet's own default (the one place a default is written)."""
    section = config[cls.__name__] if cls.__name__ in config else {}
    return section[name] if name in section else cls.class_traits(config=True)[name].default()


def grading_settings(config) -> dict:
    """{"Class.trait": value} for every setting of the grading classes, with `config` applied."""
    from ..wall.sandbox import Sandbox

    settings = {
        f"{cls.__name__}.{name}": setting(config, cls, name)
        for cls in grading_classes()
        for name in sorted(cls.class_traits(config=True))
    }
    settings["Sandbox.resolved_mode"] = Sandbox(config=config).resolved_mode()
    return json.loads(json.dumps(settings, sort_keys=True, default=str))


def settings_digest(settings: dict) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()
