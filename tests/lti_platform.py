"""A learning platform for the LTI tests, built on lti1p3platform (an independent LTI 1.3 platform library
from the registry, not written here): its registration, its signed id_tokens (RS256, its own key, its JWKS),
its access tokens for the tool's service calls (it checks the tool's client assertion against the
tool's /lti/jwks), its check of the tool's deep-linking response. What it sends is what Moodle's mod/lti
(lti_build_request_lti / the LTI 1.3 JWT claim mapping of mod/lti/locallib.php) and Canvas (Lti::Messages::
ResourceLinkRequest) send: iss, aud and azp, sub, the deployment id, the message type and version, the
target link URI, the resource link, the roles as LIS URIs, the context (CourseSection), custom parameters,
lis person/course sourcedids, the launch presentation (iframe, return URL, locale), tool_platform
(product_family_code moodle/canvas), ext.user_username (Moodle), the AGS endpoint (scopes, lineitems,
lineitem: Moodle's URLs carry ?type_id=) and the NRPS endpoint (service_versions 2.0).

It runs as a real HTTP server in a thread (the tool fetches its JWKS and posts scores to it over HTTP),
and can be taken down (503 on its token and AGS endpoints) and brought back.

The test itself is the browser: `Browser` keeps cookies as a browser does for the tool's host (Secure
ones too: the tests speak plain HTTP to 127.0.0.1), follows redirects, submits the auto-post forms.
"""

import html
import json
import re
import threading
import time
import uuid
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request

LEARNER = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
CANVAS_STUDENT = [
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#User",
]
INSTRUCTOR = [
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
]
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


def rsa_pem() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private.decode(), public.decode()


class PlainRequest(Request):
    def build_metadata(self, request):
        return request


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        return launch_data


class Platform(LTI1P3PlatformConfAbstract):
    """One platform (Moodle-like by default) with one registration of the tool."""

    def init_platform_config(self, **kwargs):
        self.tool_url = kwargs["tool_url"].rstrip("/")
        self.kind = kwargs.get("kind", "moodle")
        self.private, self.public = rsa_pem()
        self.client_id = kwargs.get("client_id", "kXq3zYbT7u0AbCd" if self.kind == "moodle" else "10000000000001")
        self.deployment_id = kwargs.get("deployment_id", "1" if self.kind == "moodle" else "7:8865aa05b4b79b64")
        self.down = False
        self.scores: list[dict] = []  # every score the AGS endpoint accepted: {"lineitem", "score", "content_type"}
        self.lineitems: dict[str, dict] = {}
        self.deep_links: list[list[dict]] = []
        self.members: list[dict] = []
        self.pending: dict[str, dict] = {}  # lti_message_hint → what that launch holds
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = self.url if self.kind == "moodle" else self.url + "/canvas"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self._registration = (
            Registration()
            .set_iss(self.issuer)
            .set_client_id(self.client_id)
            .set_deployment_id(self.deployment_id)
            .set_launch_url(self.tool_url + "/lti/launch")
            .set_deeplink_launch_url(self.tool_url + "/lti/launch")
            .set_oidc_login_url(self.tool_url + "/lti/login")
            .set_tool_key_set_url(self.tool_url + "/lti/jwks")
            .set_platform_public_key(self.public)
            .set_platform_private_key(self.private)
        )

    def get_registration_by_params(self, **kwargs):
        return self._registration

    def stop(self):
        self.server.shutdown()

    # what the instructor would paste into the tool (python -m autograder lti add …)
    def config(self, **extra) -> dict:
        return {
            "issuer": self.issuer,
            "client_id": self.client_id,
            "auth_login_url": self.url + "/mod/lti/auth.php",
            "auth_token_url": self.url + "/mod/lti/token.php",
            "key_set_url": self.url + "/mod/lti/certs.php",
            "deployment_ids": [self.deployment_id],
            **extra,
        }

    def services_base(self, course: str) -> str:
        return f"{self.url}/mod/lti/services.php/{course}"

    def lineitem(self, course: str, item: str) -> str:
        return f"{self.services_base(course)}/lineitems/{item}/lineitem?type_id=1"

    def launch(
        self,
        user: str,
        roles=LEARNER,
        name="Иван Петров",
        course="2",
        resource_link="17",
        custom=None,
        ags=True,
        lineitem=None,
        deep_link=False,
        **claims,
    ) -> str:
        """The login initiation URL of a launch of `user` (a third-party initiated login, as the platform's
        page would send it); `claims` override what the id_token holds (None: left out)."""
        hint = uuid.uuid4().hex
        self.pending[hint] = dict(
            user=user,
            roles=roles,
            name=name,
            course=course,
            resource_link=resource_link,
            custom=custom or {},
            ags=ags,
            lineitem=lineitem,
            deep_link=deep_link,
            claims=claims,
        )
        params = {
            "iss": self.issuer,
            "target_link_uri": self.tool_url + "/lti/launch",
            "login_hint": user,
            "lti_message_hint": hint,
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
        }
        return f"{self.tool_url}/lti/login?{urlencode(params)}"

    def id_token(self, preflight: dict, sign=None) -> dict:
        """The platform's answer to the tool's authentication request: {"id_token", "state", "launch_url"}."""
        what = self.pending.pop(preflight.get("lti_message_hint", ""), None)
        if what is None or preflight.get("login_hint") != what["user"]:
            raise ValueError("no such launch")
        launch = Launch(PlainRequest({"get_data": preflight, "form_data": {}}), self)
        given, family = (what["name"].split(" ", 1) + [""])[:2]
        launch.set_user_data(what["user"], what["roles"], what["name"], f"{what['user']}@example.edu", what["user"])
        launch.set_resource_link_claim(what["resource_link"], "Блокноты BPE", "")
        launch.set_launch_context_claim(
            what["course"], ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseSection"], "BPE с нуля", "BPE"
        )
        launch.set_launch_presentation_claim(
            "iframe", return_url=f"{self.url}/mod/lti/return.php?course={what['course']}"
        )
        launch.set_custom_parameters_claim(what["custom"])
        extra = {
            "given_name": given,
            "family_name": family,
            "https://purl.imsglobal.org/spec/lti/claim/lis": {
                "person_sourcedid": "",
                "course_section_sourcedid": "",
            },
            "https://purl.imsglobal.org/spec/lti/claim/tool_platform": {
                "product_family_code": self.kind,
                "version": "2024100700" if self.kind == "moodle" else "cloud",
                "guid": "example.edu",
                "name": "Example University",
            },
        }
        if self.kind == "moodle":
            extra["https://purl.imsglobal.org/spec/lti/claim/ext"] = {"user_username": what["user"], "lms": "moodle-2"}
        else:
            extra["https://purl.imsglobal.org/spec/lti/claim/lti11_legacy_user_id"] = uuid.uuid4().hex
            extra["https://www.instructure.com/placement"] = None
        launch.set_extra_claims(extra)
        if what["ags"]:
            launch.set_ags(
                f"{self.services_base(what['course'])}/lineitems?type_id=1",
                what["lineitem"],
                allow_creating_lineitems=True,
            )
        launch.set_nrps(f"{self.services_base(what['course'])}/CourseSection/{what['course']}/bindings/1/memberships")
        nrps = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
        launch.extra_claims[nrps]["service_versions"] = ["1.0", "2.0"]
        if what["deep_link"]:
            launch.set_dl(
                f"{self.url}/mod/lti/contentitem_return.php?course={what['course']}", accept_types={"ltiResourceLink"}
            )
        launch._registration = self._registration
        launch.validate_preflight_response(preflight)
        if what["claims"] or sign:
            message, state = launch.get_launch_data()
            if what["deep_link"]:
                message["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiDeepLinkingRequest"
                message.update(launch._deep_linking_launch_data)
            message.update({"iat": int(time.time()), "exp": int(time.time()) + 300})
            for claim, value in what["claims"].items():
                claim = claim.replace("__", "/")
                if value is None:
                    message.pop(claim, None)
                else:
                    message[claim] = value
            token = (sign or self.sign)(message)
            return {"id_token": token, "state": state, "launch_url": preflight["redirect_uri"]}
        data = launch.generate_launch_request()
        return {**data, "launch_url": preflight["redirect_uri"]}

    def sign(self, message: dict) -> str:
        return self._registration.platform_encode_and_sign(dict(message))


def handler_for(platform: Platform):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code: int, body, content_type="application/json"):
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def form(self) -> dict:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
            self.raw = raw
            return dict(parse_qsl(raw))

        def authorized(self, scopes) -> bool:
            auth = self.headers.get("Authorization", "").split()
            try:
                return len(auth) == 2 and platform.validate_token(auth[1], scopes)
            except Exception:
                return False

        def do_GET(self):
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query))
            if parts.path == "/mod/lti/certs.php":
                return self.reply(200, platform.get_jwks())
            if parts.path == "/mod/lti/auth.php":
                try:
                    launch = platform.id_token(query)
                except Exception as e:
                    return self.reply(400, {"error": str(e)})
                form = "".join(
                    f'<input type="hidden" name="{k}" value="{html.escape(v)}">'
                    for k, v in launch.items()
                    if k != "launch_url"
                )
                return self.reply(
                    200, f'<form method="post" action="{html.escape(launch["launch_url"])}">{form}</form>', "text/html"
                )
            if platform.down:
                return self.reply(503, {"error": "down"})
            if parts.path.endswith("/lineitems"):
                if not self.authorized(AGS_SCOPES):
                    return self.reply(401, {"error": "unauthorized"})
                return self.reply(
                    200, list(platform.lineitems.values()), "application/vnd.ims.lis.v2.lineitemcontainer+json"
                )
            if parts.path.endswith("/memberships"):
                if not self.authorized(["https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"]):
                    return self.reply(401, {"error": "unauthorized"})
                return self.reply(200, {"id": self.path, "members": platform.members})
            return self.reply(404, {"error": "not found"})

        def do_POST(self):
            parts = urlsplit(self.path)
            data = self.form() if "json" not in self.headers.get("Content-Type", "") else None
            if data is None:
                length = int(self.headers.get("Content-Length") or 0)
                self.raw = self.rfile.read(length).decode()
            if parts.path == "/mod/lti/contentitem_return.php":
                platform.deep_links.append(platform.validate_deeplinking_resp(data))
                return self.reply(200, "<p>placed</p>", "text/html")
            if platform.down:
                return self.reply(503, {"error": "down"})
            if parts.path == "/mod/lti/token.php":
                try:
                    return self.reply(200, platform.get_access_token(data))
                except Exception as e:
                    return self.reply(400, {"error": "invalid_client", "error_description": str(e)})
            if not self.authorized(AGS_SCOPES):
                return self.reply(401, {"error": "unauthorized"})
            if parts.path.endswith("/lineitems"):
                item = json.loads(self.raw)
                course = parts.path.split("/services.php/")[1].split("/")[0]
                item["id"] = platform.lineitem(course, str(100 + len(platform.lineitems)))
                platform.lineitems[item["id"]] = item
                return self.reply(201, item, "application/vnd.ims.lis.v2.lineitem+json")
            if parts.path.endswith("/lineitem/scores"):
                lineitem = f"{platform.url}{parts.path.removesuffix('/scores')}?{parts.query}"
                platform.scores.append(
                    {
                        "lineitem": lineitem,
                        "score": json.loads(self.raw),
                        "content_type": self.headers.get("Content-Type"),
                    }
                )
                return self.reply(200, {})
            return self.reply(404, {"error": "not found"})

    return Handler


class Browser:
    """A browser for the tool's pages: it keeps the tool's cookies (with their attributes, to check them),
    follows redirects and posts the platform's auto-submitted forms."""

    def __init__(self, tool_url: str, cookies: bool = True):
        self.tool_url = tool_url
        self.keeps_cookies = cookies  # False: a browser blocking third-party cookies inside the LMS's iframe
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []

    def request(self, method: str, url: str, **kwargs) -> requests.Response:
        for _ in range(10):
            headers = dict(kwargs.pop("headers", {}) or {})
            if url.startswith(self.tool_url) and self.cookies:
                headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            r = requests.request(method, url, headers=headers, allow_redirects=False, timeout=60, **kwargs)
            if url.startswith(self.tool_url):
                for line in r.raw.headers.getlist("Set-Cookie"):
                    self.set_cookies.append(line)
                    if self.keeps_cookies:
                        jar = SimpleCookie()
                        jar.load(line)
                        self.cookies.update({k: m.value for k, m in jar.items()})
            if r.status_code not in (301, 302, 303, 307):
                return r
            url, method, kwargs = urljoin(url, r.headers["Location"]), "GET", {}
        raise AssertionError("too many redirects")

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)

    def launch(self, login_url: str, tamper=None) -> requests.Response:
        """The whole launch: the login initiation, the platform's authentication answer (its form, posted
        as the browser would; `tamper` may change it first), the tool's launch. The tool's last answer."""
        r = self.get(login_url)
        form = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', r.text))
        if "id_token" not in form:
            return r
        form = {k: html.unescape(v) for k, v in form.items()}
        action = html.unescape(re.search(r'action="([^"]+)"', r.text).group(1))
        if tamper:
            form = tamper(form)
        self.last_form = form
        return self.post(action, data=form)

    def form_fields(self, text: str) -> dict:
        return {k: html.unescape(v) for k, v in re.findall(r'name="([^"]+)" value="([^"]*)"', text)}
