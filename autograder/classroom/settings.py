"""The settings that change a grade, in one place: they key the result cache and go into grading.json.

Every configurable trait of the classes that grade (the pipeline, the evaluator, the kernel session,
the sandbox) as the configuration sets it, and the walls the sandbox really gets on this machine
(bubblewrap or limits only). A notebook graded under other settings (`--notebook-timeout 2`,
`--no-sandbox`, a new time limit) is graded again instead of served from the cache.
"""

import hashlib
import json


def grading_settings(config) -> dict:
    """{"Class.trait": value} for every setting of the grading classes, with `config` applied."""
    from ..notebook.evaluate import Evaluator
    from ..notebook.pipeline import NotebookGrader
    from ..wall.sandbox import Sandbox
    from ..wall.session import KernelSession

    settings = {}
    for cls in (NotebookGrader, Evaluator, KernelSession, Sandbox):
        section = config[cls.__name__] if cls.__name__ in config else {}
        for name, trait in sorted(cls.class_traits(config=True).items()):
            value = section[name] if name in section else trait.default()
            settings[f"{cls.__name__}.{name}"] = value
    settings["Sandbox.resolved_mode"] = Sandbox(config=config).resolved_mode()
    return json.loads(json.dumps(settings, sort_keys=True, default=str))


def settings_digest(settings: dict) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()
