"""The course server's LTI 1.3 pages (Tornado), on pylti1p3 (autograder.server.lti): the adapter of its
request, cookie and redirect interfaces, and the routes a platform is given.

/lti/login  OIDC login initiation (GET or POST from the platform). It first sets a probe cookie and comes
            back to itself: a browser that keeps no cookie inside the LMS's iframe (third-party cookies
            blocked) gets a page that opens the tool in a new window, where they are first-party, as the
            LTI guidance recommends; otherwise it redirects to the platform's authorization URL.
/lti/launch The id_token, validated in full; a student's launch opens their page, an instructor's the
            instructor's page (each through a session token that works like their link for some hours),
            a deep-linking request the page to place a notebook (or the assignment) as a graded activity.
/lti/deeplink The chosen activity: the signed LtiDeepLinkingResponse, posted back to the platform.
/lti/jwks   The tool's public key (the platform checks the service tokens and deep links with it).

A refused launch gets a page saying why, with status 403, and nothing is recorded: no student, no
attempt, no grade.
"""

import json
from urllib.parse import urlencode

import tornado.web

from . import store as records
from .lti import DEEP_LINKING, LTI, NRPS, SESSION_SECONDS, Refused, is_instructor
from .web import CSP, Base, render

PROBE = "lti1p3-probe"
COOKIE = {"secure": True, "httponly": True, "samesite": "None", "path": "/"}  # kept inside an LMS's iframe
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "lti_deployment_id", "client_id")


class TornadoRequest:
    """pylti1p3's Request interface over a Tornado handler."""

    def __init__(self, handler: tornado.web.RequestHandler):
        self.handler = handler

    @property
    def session(self):
        return {}

    def is_secure(self) -> bool:
        return self.handler.request.protocol == "https"

    def get_param(self, key: str) -> str:
        return self.handler.get_argument(key, "")


class TornadoCookies:
    """pylti1p3's CookieService over a Tornado handler: cookies SameSite=None; Secure; HttpOnly."""

    prefix = "lti1p3-"

    def __init__(self, handler: tornado.web.RequestHandler):
        self.handler = handler

    def get_cookie(self, name: str):
        return self.handler.get_cookie(self.prefix + name)

    def set_cookie(self, name: str, value, exp=3600):
        self.handler.set_cookie(self.prefix + name, str(value), max_age=exp, **COOKIE)


def pylti_classes():
    from pylti1p3.cookie import CookieService
    from pylti1p3.message_launch import MessageLaunch
    from pylti1p3.oidc_login import OIDCLogin
    from pylti1p3.redirect import Redirect
    from pylti1p3.request import Request

    class Req(TornadoRequest, Request):
        pass

    class Cookies(TornadoCookies, CookieService):
        pass

    class Redirector(Redirect):
        def __init__(self, location: str, handler):
            self.location, self.handler = location, handler

        def do_redirect(self):
            self.handler.redirect(self.location)

        def do_js_redirect(self):  # the pages allow no scripts: a plain redirect
            self.handler.redirect(self.location)

        def set_redirect_url(self, location: str):
            self.location = location

        def get_redirect_url(self) -> str:
            return self.location

    class Login(OIDCLogin):
        def get_redirect(self, url):
            return Redirector(url, self._request.handler)

    class Launch(MessageLaunch):
        def _get_request_param(self, key):
            return self._request.get_param(key)

    return Req, Cookies, Login, Launch


class LtiBase(Base):
    def check_xsrf_cookie(self):
        pass  # the platform's form posts carry no _xsrf: state (cookie) and nonce (once) guard the launch

    @property
    def tool(self):
        return self.application.settings["lti"]

    def services(self):
        from pylti1p3.session import SessionService

        Req, Cookies, Login, Launch = pylti_classes()
        request = Req(self)
        session = SessionService(request)
        return request, session, Cookies(self), Login, Launch

    def refuse(self, reason: str, status: int = 403, again: str = ""):
        """The refusal's page; `again`: the login's address, offered to open in a new window."""
        self.set_status(status)
        self.finish(render("lti_refused.html", title="Запуск не принят", reason=reason, again=again))


class Jwks(LtiBase):
    def get(self):
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(self.tool.jwks()))


class Login(LtiBase):
    def get(self):
        self.login()

    def post(self):
        self.login()

    def login(self):
        params = {k: self.get_argument(k, "") for k in LOGIN_PARAMS if self.get_argument(k, "")}
        if not self.get_argument("probe", ""):
            self.set_cookie(PROBE, "1", max_age=300, **COOKIE)
            self.redirect("/lti/login?" + urlencode({**params, "probe": "1"}))
            return
        if not self.get_cookie(PROBE):
            again = "/lti/login?" + urlencode(params)
            return self.refuse(
                "Браузер не сохраняет cookie внутри страницы курса (запрещены сторонние cookie), а без них вход "
                "по LTI не проверить.",
                200,
                again,
            )
        request, session, cookies, Login_, _ = self.services()
        login = Login_(request, self.tool.conf, session_service=session, cookie_service=cookies)
        login.set_launch_data_storage(self.tool.storage())
        try:
            login.redirect(self.tool.urls()["launch"])
        except Exception as e:
            return self.refuse(f"Вход по LTI не начат: {e}", 400)


class Launch(LtiBase):
    async def post(self):
        from pylti1p3.exception import LtiException, ToolConfException

        request, session, cookies, _, Launch_ = self.services()
        launch = Launch_(
            request,
            self.tool.conf,
            session_service=session,
            cookie_service=cookies,
            launch_data_storage=self.tool.storage(),
        )
        launch.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat"]})
        try:
            body = launch.get_launch_data()
            header = launch._jwt.get("header", {})
            platform = self.tool.check(header, body)
        except Refused as e:
            return self.refuse(str(e))
        except (LtiException, ToolConfException, AssertionError, KeyError, ValueError) as e:
            return self.refuse(reason_of(e))
        course = self.course
        if launch.is_deep_link_launch():
            if not is_instructor(body):
                return self.refuse("Размещать задания в курсе может только преподаватель.")
            return self.finish(deep_link_page(course, launch.get_launch_id()))
        if not launch.is_resource_launch():
            return self.refuse("Этот вид запуска LTI инструмент не поддерживает.")
        if is_instructor(body):
            await self.read_roster(platform, body)
            token = course.store.open_session(records.INSTRUCTOR, SESSION_SECONDS)
            return self.redirect(f"/teacher/{token}", status=303)
        student = self.tool.student_of(course.store, body)
        custom = body.get(LTI + "custom") or {}
        notebook = course.notebook_named(str(custom.get("notebook", ""))) or ""
        label = course.notebooks[notebook].title if notebook else "Задание"
        self.tool.remember_activity(platform, student, body, notebook, label)
        course.graded_changed()
        token = course.store.open_session(student, SESSION_SECONDS)
        self.redirect(f"/s/{token}", status=303)

    async def read_roster(self, platform: dict, body: dict) -> None:
        """An instructor's launch that names the platform's NRPS endpoint: the course's students enrolled
        (the roster, instead of --roster), so the instructor's page lists who has not uploaded yet. A platform
        that does not answer leaves the roster as it was (the log says why)."""
        import logging

        import tornado.ioloop

        service = body.get(NRPS) or {}
        if not service.get("context_memberships_url"):
            return
        try:
            members = await tornado.ioloop.IOLoop.current().run_in_executor(None, self.tool.members, platform, service)
        except Exception as e:
            logging.getLogger("tornado.application").warning("the roster (NRPS) could not be read: %s", e)
            return
        self.tool.enrol_members(self.course.store, platform, members)


def reason_of(error: Exception) -> str:
    """What a refused id_token was refused for, in words (the library's message kept for the log)."""
    text = str(error)
    known = [
        ("Invalid Nonce", "токен уже был использован (повтор запуска) или выписан не для этого входа"),
        ("State not found", "вход начат не в этом браузере (нет cookie состояния): откройте задание из курса ещё раз"),
        ("Missing state", "вход начат не в этом браузере (нет параметра state)"),
        ("[client_id=", "токен выписан не этому инструменту (aud): такой client_id не зарегистрирован"),
        ("not found in settings", "платформа (iss) не зарегистрирована на этом сервере"),
        ("Client id not registered", "токен выписан не этому инструменту (aud)"),
        ("deployment ID", "развёртывание (deployment_id) не зарегистрировано на этом сервере"),
        ("Signature has expired", "срок действия токена истёк"),
        ("Unable to find public key", "токен подписан ключом, которого нет у платформы, или не подписан"),
        ("Signature verification failed", "подпись токена неверна"),
        ("KID not found", "токен без ключа подписи (kid)"),
        ("ALG not found", "токен без алгоритма подписи"),
        ("JWT must contain 3 parts", "это не подписанный JWT"),
        ("Incorrect version", "версия LTI не 1.3.0"),
        ("message type", "вид сообщения LTI не поддерживается"),
        ("Can't decode id_token", "токен не проходит проверку"),
    ]
    said = next((words for key, words in known if key in text), "токен не проходит проверку")
    return f"{said} ({text[:200]})"


def deep_link_page(course, launch_id: str) -> str:
    options = [("", "Всё задание", sum(nb.max_score for nb in course.notebooks.values()))]
    options += [(n, f"{nb.title} ({n})", nb.max_score) for n, nb in course.notebooks.items()]
    return render("deep_link.html", title="Разместить задание", launch=launch_id, options=options)


class DeepLink(LtiBase):
    def post(self):
        from pylti1p3.deep_link_resource import DeepLinkResource
        from pylti1p3.exception import LtiException
        from pylti1p3.lineitem import LineItem

        launch_id = self.get_argument("launch", "")
        request, session, cookies, _, Launch_ = self.services()
        storage = self.tool.storage()
        try:
            if not launch_id.startswith("lti1p3-launch-"):
                raise LtiException("no launch")
            launch = Launch_.from_cache(
                launch_id,
                request,
                self.tool.conf,
                session_service=session,
                cookie_service=cookies,
                launch_data_storage=storage,
            )
            body = launch.get_launch_data()
        except (LtiException, AssertionError, KeyError, ValueError):
            return self.refuse("Этот выбор уже сделан или устарел: начните размещение в курсе заново.")
        if not launch.is_deep_link_launch() or not is_instructor(body):
            return self.refuse("Размещать задания в курсе может только преподаватель.")
        storage.check_value(launch_id)  # the choice is made once
        course = self.course
        notebook = course.notebook_named(self.get_argument("notebook", "")) or ""
        nbs = [notebook] if notebook else list(course.notebooks)
        title = course.notebooks[notebook].title if notebook else "Задание: " + ", ".join(nbs)
        maximum = sum(course.notebooks[n].max_score for n in nbs)
        tag = notebook or "assignment"
        resource = (
            DeepLinkResource()
            .set_url(self.tool.urls()["launch"])
            .set_title(title)
            .set_custom_params({"notebook": notebook or "assignment"})
            .set_lineitem(LineItem().set_tag(tag).set_score_maximum(maximum).set_label(title).set_resource_id(tag))
        )
        deep_link = launch.get_deep_link()
        jwt_value = deep_link.get_response_jwt([resource])
        back = (body.get(DEEP_LINKING) or {}).get("deep_link_return_url", "")
        from urllib.parse import urlsplit

        parts = urlsplit(back)
        self.set_header(
            "Content-Security-Policy",
            self.settings.get("csp", CSP).replace("form-action 'self'", f"form-action {parts.scheme}://{parts.netloc}"),
        )
        self.finish(
            render(
                "deep_link_done.html", title="Разместить задание", back=back, jwt=jwt_value, name=title, maximum=maximum
            )
        )


def routes() -> list:
    return [
        (r"/lti/login", Login),
        (r"/lti/launch", Launch),
        (r"/lti/deeplink", DeepLink),
        (r"/lti/jwks", Jwks),
    ]
