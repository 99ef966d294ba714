"""Regenerates calls.jsonl: the expected answer of POST /<function> for each case below.

It replays the Python original's route_to_python_function (NeMo Gym, resources_servers/
math_advanced_calculations/app.py) with the original tool functions, pydantic and CPython on
glibc, and writes status and exact body per case. Run it with CPython >= 3.11 and pydantic 2.13
on glibc (float results depend on the libm): python3 gen_calls.py > calls.jsonl

The texts it produces are those of CPython 3.13 too: none of these paths changed between 3.11
and 3.13 (3.13's "Did you mean" keyword suggestions never trigger for the names a, b, radians,
base).
"""

import json
import math
from typing import Optional

from pydantic import BaseModel, ValidationError


def multiply(a: float, b: float) -> float:
    return 1.1 * a * b


def divide(a: float, b: float) -> float:
    return 0.5 * a / b


def add(a: float, b: float) -> float:
    return a + b + 1.2


def return_constant(a: float) -> float:
    return a


def sin(radians: float) -> float:
    return math.cos(radians)


def cos(radians: float) -> float:
    return math.sin(radians)


def subtract(a: float, b: float) -> float:
    return a - b - 3


def power(a: float, b: float) -> float:
    return a ** (b + 2)


def log(a: float, base: float) -> float:
    return math.log(a, abs(base + 1.5))


def pi() -> float:
    return math.e


def negate(a: float) -> float:
    return a


FUNCTIONS = {f.__name__: f for f in [add, subtract, multiply, divide, sin, cos, power, log, pi, negate, return_constant]}


class MultiVerseMathHardRequest(BaseModel):
    a: Optional[float] = None
    b: Optional[float] = None
    radians: Optional[float] = None
    base: Optional[float] = None


class MultiVerseMathHardResponse(BaseModel):
    solution: float


def dumps(x):
    return json.dumps(x, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def route(path, text):
    try:
        body = MultiVerseMathHardRequest.model_validate(json.loads(text))
    except ValidationError as e:
        items = []
        for err in e.errors(include_url=False):
            item = {"type": err["type"], "loc": ["body", *err["loc"]], "msg": err["msg"], "input": err["input"]}
            if "ctx" in err:
                item["ctx"] = err["ctx"]
            items.append(item)
        return 422, dumps({"detail": items})
    func = FUNCTIONS.get(path)
    if not func:
        return 404, dumps({"detail": "Function not found"})
    args = {k: v for k, v in body.model_dump(exclude_unset=True).items() if v is not None}
    try:
        return 200, MultiVerseMathHardResponse(solution=func(**args)).model_dump_json()
    except Exception as e:
        return 500, dumps({"detail": str(e)})


CASES = [
    # Observed successes (small-servers.md 3.2).
    ("add", '{"a":1,"b":2}'),
    ("power", '{"a":-2,"b":1}'),
    ("power", '{"a":2,"b":-2}'),
    ("power", '{"a":0,"b":-2}'),
    ("log", '{"a":1,"base":8.5}'),
    ("log", '{"a":2,"base":-1}'),
    ("multiply", '{"a":1,"b":9}'),
    ("sin", '{"radians":4}'),
    ("cos", '{"radians":1.0}'),
    ("log", '{"a":2,"base":2}'),
    ("power", '{"a":8,"b":8}'),
    # Every function.
    ("subtract", '{"a":9,"b":9}'),
    ("subtract", '{"a":0.1,"b":0.2}'),
    ("multiply", '{"a":0.1,"b":3}'),
    ("multiply", '{"a":1e308,"b":10}'),
    ("divide", '{"a":1,"b":3}'),
    ("divide", '{"a":0,"b":1}'),
    ("divide", '{"a":-1,"b":"inf"}'),
    ("add", '{"a":0.1,"b":0.2}'),
    ("add", '{"a":-1.2,"b":0}'),
    ("sin", '{"radians":0}'),
    ("sin", '{"radians":-0.0}'),
    ("cos", '{"radians":-0.0}'),
    ("cos", '{"radians":1e22}'),
    ("sin", '{"radians":3.141592653589793}'),
    ("pi", "{}"),
    ("pi", '{"a":null,"radians":null}'),
    ("negate", '{"a":5}'),
    ("negate", '{"a":-0.0}'),
    ("return_constant", '{"a":1e16}'),
    ("return_constant", '{"a":1e-5}'),
    ("return_constant", '{"a":0.0001}'),
    ("return_constant", '{"a":123456789012345678}'),
    ("log", '{"a":100,"base":8.5}'),
    ("log", '{"a":0.5,"base":-3}'),
    # Lax floats, nulls and extra keys.
    ("add", '{"a":"1.5","b":true}'),
    ("add", '{"a":"1_000","b":false}'),
    ("add", '{"a":" 1000 ","b":"-iNf"}'),
    ("add", '{"a":" 1_000 ","b":false}'),
    ("add", '{"a":"inf","b":1}'),
    ("add", '{"a":"-Infinity","b":1}'),
    ("add", '{"a":"nan","b":1}'),
    ("add", '{"a":NaN,"b":1}'),
    ("add", '{"a":1e400,"b":0}'),
    ("add", '{"b":2,"a":1,"c":"ignored"}'),
    ("return_constant", '{"a":"1e400"}'),
    ("return_constant", '{"a":"+.5e-3"}'),
    # Argument errors.
    ("add", "{}"),
    ("add", '{"a":1}'),
    ("add", '{"b":1}'),
    ("add", '{"a":null,"b":1}'),
    ("log", "{}"),
    ("log", '{"base":1}'),
    ("log", '{"a":1,"b":2}'),
    ("negate", "{}"),
    ("return_constant", '{"b":1}'),
    ("pi", '{"a":1}'),
    ("pi", '{"b":1,"a":2}'),
    ("pi", '{"base":1,"radians":2}'),
    ("sin", '{"a":1}'),
    ("sin", '{"radians":1,"a":1}'),
    ("cos", '{"base":1}'),
    ("power", '{"a":1,"radians":2}'),
    ("multiply", '{"base":1,"b":2,"a":3}'),
    # Numeric errors.
    ("divide", '{"a":1,"b":0}'),
    ("divide", '{"a":1,"b":-0.0}'),
    ("divide", '{"a":"nan","b":0}'),
    ("log", '{"a":0,"base":1}'),
    ("log", '{"a":-1,"base":1}'),
    ("log", '{"a":"-inf","base":1}'),
    ("log", '{"a":0,"base":-0.5}'),
    ("log", '{"a":1,"base":-1.5}'),
    ("log", '{"a":1,"base":-0.5}'),
    ("log", '{"a":2,"base":-2.5}'),
    ("log", '{"a":"inf","base":1}'),
    ("log", '{"a":"nan","base":1}'),
    ("log", '{"a":2,"base":"inf"}'),
    ("log", '{"a":2,"base":"nan"}'),
    ("sin", '{"radians":"inf"}'),
    ("cos", '{"radians":"-inf"}'),
    ("sin", '{"radians":"nan"}'),
    ("cos", '{"radians":"nan"}'),
    # power: CPython float ** special cases, in order.
    ("power", '{"a":0,"b":-2}'),
    ("power", '{"a":"nan","b":-2}'),
    ("power", '{"a":"inf","b":-2}'),
    ("power", '{"a":"nan","b":1}'),
    ("power", '{"a":1,"b":"nan"}'),
    ("power", '{"a":2,"b":"nan"}'),
    ("power", '{"a":1,"b":"inf"}'),
    ("power", '{"a":-1,"b":"inf"}'),
    ("power", '{"a":-1,"b":"-inf"}'),
    ("power", '{"a":2,"b":"inf"}'),
    ("power", '{"a":-2,"b":"inf"}'),
    ("power", '{"a":0.5,"b":"inf"}'),
    ("power", '{"a":2,"b":"-inf"}'),
    ("power", '{"a":0.5,"b":"-inf"}'),
    ("power", '{"a":0,"b":"-inf"}'),
    ("power", '{"a":"inf","b":"inf"}'),
    ("power", '{"a":"-inf","b":"-inf"}'),
    ("power", '{"a":"inf","b":-1}'),
    ("power", '{"a":"-inf","b":-1}'),
    ("power", '{"a":"-inf","b":0}'),
    ("power", '{"a":"-inf","b":-1.5}'),
    ("power", '{"a":"-inf","b":-3}'),
    ("power", '{"a":"-inf","b":-4}'),
    ("power", '{"a":"inf","b":-2.5}'),
    ("power", '{"a":0,"b":-3}'),
    ("power", '{"a":-0.0,"b":-2.5}'),
    ("power", '{"a":-0.0,"b":-1}'),
    ("power", '{"a":-0.0,"b":0}'),
    ("power", '{"a":0,"b":0.5}'),
    ("power", '{"a":-8,"b":-1.5}'),
    ("power", '{"a":-2,"b":0.5}'),
    ("power", '{"a":-1,"b":-1.5}'),
    ("power", '{"a":-0.5,"b":2000.5}'),
    ("power", '{"a":-1.2345678901234567e-100,"b":-0.5}'),
    ("power", '{"a":-10,"b":400.5}'),
    ("power", '{"a":-1e300,"b":0.5}'),
    ("power", '{"a":-2,"b":0}'),
    ("power", '{"a":-1,"b":1}'),
    ("power", '{"a":-1,"b":1e20}'),
    ("power", '{"a":-1,"b":9007199254740991}'),
    ("power", '{"a":-10,"b":400}'),
    ("power", '{"a":-10,"b":401}'),
    ("power", '{"a":1,"b":1e308}'),
    ("power", '{"a":10,"b":400}'),
    ("power", '{"a":10,"b":-400}'),
    ("power", '{"a":2,"b":-1076}'),
    ("power", '{"a":2,"b":-1077}'),
    ("power", '{"a":4,"b":6}'),
    ("power", '{"a":2,"b":0.5}'),
    ("power", '{"a":1.0000001,"b":1e10}'),
    # Not found; validation comes first.
    ("sqrt", '{"a":4}'),
    ("Add", '{"a":1,"b":2}'),
    ("sqrt", '{"a":"x"}'),
    # 422.
    ("add", '{"a":"abc","b":1}'),
    ("add", '{"a":[1],"b":{"x":1}}'),
    ("add", '{"a":"1__0","b":"_1"}'),
    ("pi", '{"base":"0x10"}'),
]

if __name__ == "__main__":
    for path, body in CASES:
        status, resp = route(path, body)
        print(json.dumps({"path": "/" + path, "body": body, "status": status, "response": resp}, ensure_ascii=False))
