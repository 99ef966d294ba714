"""Regenerates cpython_parse.jsonl and cpython_floats.jsonl from a real CPython.

Run with CPython 3.13 (the version the Python stack pins):

    python3.13 testdata/gen_cpython.py

Each parse line is one input (hex) and what json.loads(bytes) does with it:
the JSONDecodeError msg and pos, the class of another exception, or the
repr and three json.dumps renderings of the result. Lone surrogates in the
result are replaced by U+FFFD first (Go strings cannot hold them).
"""
import json
import math
import os
import random
import struct
import sys

sys.setrecursionlimit(20000)
HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20260529)

HAND = [
    b'{some broken json}', b'  ', b'nul', b'{"spam":42,}', b'[1,]', b'', b'{', b'[', b'"abc',
    b'"a\x01"', b'"\\x"', b'"\\u12"', b'"\\u12G4"', b'1 2', b'{"a" 1}', b'{"a":1 "b":2}', b'[1 2]',
    b'01', b'-', b'1.', b'1e', b'-x', b'\xef\xbb\xbf{}', b'\xc3\xa9x', b'"\xc3\xa9\x01"', b'[1,,]',
    b'{"a":}', b'[,]', b'{,}', b'{"a":1,,}', b'NaN', b'-Infinity', b'Infinity', b'-NaN', b'Infinit',
    b'[1,\n]', b'{"a":1 ,\n }', b'"\\ud800"', b'"\\ud800\\udc00"', b'"abc\\', b'"abc\\u', b'[\xc3\xa9',
    b'\xef\xbb\xbf', b'\xef\xbb\xbf  x', b'{"a":1}x', b'{"a"', b'{"a":', b'{"a":1', b'[1', b'["a"',
    b'[1,', b'{"a":1,', b'{"a":1, ', b'{"a":1,"b"', b'"\\', b'"\\u', b'"\\uD834"', b'"\\uD834\\u"',
    b'"\\uD834\\u12"', b'"\\uD834\\uZZZZ"', b'"\\uD834x"', b'"\\uD834\\u0041"', b'"\\uDC00\\uD800"',
    b' \x0c1', b'1\x0c', b'[1\x0c]', '\u00e9"a'.encode(), b'"\xf0\x9f\x98\x80\x01"',
    b'\xf0\x9f\x98\x80', b'[\xf0\x9f\x98\x80]', b'["\xf0\x9f\x98\x80",x]', b'-0', b'-01', b'1e+',
    b'1E5', b'.5', b'+1', b'tru', b'true1', b'nulll', b'1e400', b'-1e400', b'1e-400', b'-0.0',
    b'123456789012345678901234567890', b'0.1', b'1.5e-7', b'1e16', b'1e15', b'1e-5', b'1e-6',
    b'{"a":1,"a":2,"b":3,"a":4}', b'{"x":{"y":[1,{"z":null}]}}', b'"\\/\\b\\f\\n\\r\\t\\"\\\\"',
    b'"<>&\xe2\x80\xa8\x7f"', b'"\\u00e9\\u2028\\u0000"', b'[true,false,null]', b'{"":""}',
    b'\t\n\r [ ]\t\n\r ', b'{ }', b'[ 1 , 2 ]', b'{ "a" : 1 , "b" : [ ] }', b'1.0e+2', b'1E-2',
    b'3.', b'3.e5', b'3e', b'3e+', b'3e+x', b'-Infinityx', b'NaNx', b'[NaN,Infinity,-Infinity]',
    b'"\xed\xa0\x80"', b'"\xed\xa0\x80\xed\xb0\x80"', b'\xed\xa0\x80', b'"\xc0\x80"',
    b'"\xf4\x90\x80\x80"', b'"a"\xff', b'[1,]\xff', b'1\x00\x00\x00', b'{\x00}\x00', b'\x00{\x00}',
    b'\xff\xfe{\x00}\x00', b'\xfe\xff\x00[\x00]', b'\xff\xfe\x00\x00[\x00\x00\x00]\x00\x00\x00',
    b'\x00\x00\x00[\x00\x00\x00]', b'[\x00\x00\x00', b'1\x00', b'\x001', b'"\x00\xd8"\x00',
    b'"\x00\x00\xd8"\x00', b'{\x00', b'\x00\x00', b'a\x00b\x00c', b'[\x001\x00,\x00]\x00',
    b'"\x00\x00\xd8', b'"\x00\x00\xd8\x00\xd8"\x00', b'"\x00=\xd8\x00\xde"\x00',
    b'"\x00\x00\x00\x00\x00\x11\x00"\x00\x00\x00', b'1\x00\x00\x00\x00', b'\xff\xfe', b'\xfe\xff',
    b'\xef\xbb\xbf\xef\xbb\xbf1', b'\xff\xfe1\x00', b'\xfe\xff\x001', b'1\x00 \x00\xa0\x00',
    b'"\x00\xe9\x00\x01\x00"\x00', b'\x00\x001\x00', b'\xef\xbb\xbf"\xed\xa0\x80\x01"',
    b'"a\nb"', b'[\n1,\n2,\n}', b'{\n"a":\n1\n,\n}', b'"\xc3\xa9\xc3\xa9\\q"', b'[\xc3\xa9\xc3\xa9',
    # Big and deep inputs (4300-digit ints, 1000 levels) are checked in Go tests.
    b'"\x7f"', b'"\\u007f"', b'"\\uffff"', b'"\\U0001"', b'"\\u0041\\u0042"', b'"\\ud83d\\ude00"',
    b'"\\uD83D\\uDE00"', b'"\xf0\x9f\x98\x80\\ud83d"', b'{"\\u00e9":"\xc3\xa9"}', b'[1.5,-2.25,0.0001]',
    b'[1e22,1e21,123456789.125,5e-324,1.7976931348623157e308]', b'"' + b'a' * 100 + b'\\n"',
    b'"' + b'\xc3\xa9' * 20 + b'"', b'[""]', b'{"a":[]}', b'["\\"]',
]

SEEDS = [
    b'{"a": [1, 2.5, "x\\n\\u00e9"], "b": {"c": null, "d": true}, "e": -0.0}',
    b'[{"k": "v"}, [], {}, "\xc3\xa9\xf0\x9f\x98\x80", 1e5, -12, NaN]',
    b'{"responses_create_params": {"input": [{"role": "user", "content": "hi"}]}, "reward": 1.0}',
    b'  {"x" : [ true , false , null ] , "y" : "\\ud83d\\ude00" }  ',
]
SIGNIFICANT = b'{}[]:,"\\ \n\tnulltruefalse0123456789-+.eENaI\x01\xc3\xa9\x00'


def mutate(doc):
    b = bytearray(doc)
    for _ in range(rng.randint(1, 3)):
        op = rng.randint(0, 4)
        if op == 0 and b:
            del b[rng.randrange(len(b))]
        elif op == 1:
            b.insert(rng.randint(0, len(b)), rng.choice(SIGNIFICANT))
        elif op == 2 and b:
            b = b[:rng.randrange(len(b))]
        elif op == 3 and b:
            i = rng.randrange(len(b))
            b[i] = rng.choice(SIGNIFICANT)
        else:
            i = rng.randint(0, len(b))
            j = rng.randint(i, min(len(b), i + 6))
            b[i:i] = b[i:j]
    return bytes(b)


def rand_float():
    k = rng.randint(0, 5)
    if k == 0:
        return struct.unpack('<d', struct.pack('<Q', rng.getrandbits(64)))[0]
    if k == 1:
        return rng.uniform(-1e6, 1e6)
    if k == 2:
        return float(rng.randint(-10**6, 10**6)) * 10.0 ** rng.randint(-30, 30)
    if k == 3:
        return rng.choice([1.0, 0.1, 1e15, 1e16, 1e-4, 1e-5, 9.999999999999999e15, 123456789012345678.0])
    if k == 4:
        return round(rng.uniform(-100, 100), rng.randint(0, 6))
    return 10.0 ** rng.randint(-25, 25)


def rand_string():
    alphabet = ['a', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\x00', '\x1f', '\x7f', '\u00e9', '\u2028',
                '\u00a0', '\u200b', '\ufeff', '\U0001f600', "'", '<', '&', '\U000e0001', '\u0378']
    return ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))


def rand_value(depth=0):
    k = rng.randint(0, 9 if depth < 4 else 5)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([True, False])
    if k == 2:
        return rng.choice([0, -1, 7, 2**63, -(2**70), 10**30])
    if k == 3:
        x = rand_float()
        return x if math.isfinite(x) else 0.5
    if k in (4, 5):
        return rand_string()
    if k in (6, 7):
        return [rand_value(depth + 1) for _ in range(rng.randint(0, 4))]
    return {rand_string(): rand_value(depth + 1) for _ in range(rng.randint(0, 4))}


def fix(o):
    if isinstance(o, str):
        return ''.join('\ufffd' if 0xD800 <= ord(c) < 0xE000 else c for c in o)
    if isinstance(o, list):
        return [fix(x) for x in o]
    if isinstance(o, dict):
        return {fix(k): fix(v) for k, v in o.items()}
    return o


def dumps_or_error(o, **kw):
    try:
        return json.dumps(o, **kw)
    except ValueError as e:
        return 'ValueError: ' + str(e)


def case(b):
    out = {'in': b.hex()}
    try:
        o = json.loads(b)
    except json.JSONDecodeError as e:
        out['msg'], out['pos'] = e.msg, e.pos
        return out
    except Exception as e:  # UnicodeDecodeError, ValueError, RecursionError
        out['exc'] = type(e).__name__
        return out
    o = fix(o)
    try:
        out['repr'] = repr(o)
    except Exception as e:  # e.g. deep nesting
        out['exc_repr'] = type(e).__name__
        return out
    if len(b) > 3000:  # keep the file small: big inputs only check repr
        return out
    try:
        out['dumps'] = dumps_or_error(o)
        out['compact'] = dumps_or_error(o, separators=(',', ':'), ensure_ascii=False, allow_nan=False)
        out['indent'] = dumps_or_error(o, indent=2, ensure_ascii=False)
    except RecursionError:
        out.pop('dumps', None)
        out.pop('compact', None)
    return out


def main():
    inputs = list(HAND)
    for _ in range(1200):
        inputs.append(mutate(rng.choice(SEEDS + HAND[:60])))
    for _ in range(300):
        inputs.append(json.dumps(rand_value(), ensure_ascii=rng.random() < 0.5).encode())
    seen = set()
    with open(os.path.join(HERE, 'cpython_parse.jsonl'), 'w') as f:
        f.write(json.dumps({'python': sys.version}) + '\n')
        for b in inputs:
            if b in seen:
                continue
            seen.add(b)
            f.write(json.dumps(case(b)) + '\n')
    with open(os.path.join(HERE, 'cpython_floats.jsonl'), 'w') as f:
        f.write(json.dumps({'python': sys.version}) + '\n')
        for _ in range(3000):
            x = rand_float()
            if not math.isfinite(x):
                continue
            f.write(json.dumps({'bits': struct.unpack('<Q', struct.pack('<d', x))[0], 'repr': repr(x)}) + '\n')


main()
