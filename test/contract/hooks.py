"""Schemathesis hooks for meshplane's contract tier (scripts/contract.sh).

Each operation is called with a real credential of the kind its `x-meshplane-access` names: the
operator credential for operator routes, the tenant's viewer token for viewer routes and its admin
token for editor and admin routes. Agent routes get no valid credential: an agent signs a fresh JWT
per request with its own key, so the fuzzer exercises what they answer to everyone else (401, 400).
"""
import os

import schemathesis

TOKENS = {
    "operator": os.environ["MESHPLANE_CONTRACT_OPERATOR"],
    "viewer": os.environ["MESHPLANE_CONTRACT_VIEWER"],
    "editor": os.environ["MESHPLANE_CONTRACT_ADMIN"],
    "admin": os.environ["MESHPLANE_CONTRACT_ADMIN"],
}


# Not cached: each operation needs the credential of its own access, not the first one fetched.
@schemathesis.auth(refresh_interval=None)
class ByAccess:
    def get(self, case, context):
        return TOKENS.get(case.operation.definition.raw.get("x-meshplane-access", ""))

    def set(self, case, data, context):
        if data is not None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
