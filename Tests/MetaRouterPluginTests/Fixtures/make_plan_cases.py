#!/usr/bin/env python3
"""Writes plan_cases.json: JSON Schema (draft-07) cases with the verdict of the reference
validator (python-jsonschema's Draft7Validator), for TrackingPlanTests to agree with.

Usage: python3 make_plan_cases.py > plan_cases.json   (needs `pip install jsonschema`)

Hand-written cases cover each keyword the tracking plan supports, nested objects, arrays of
objects, integers against numbers (1.0 is an integer) and string lengths in code points; the
rest are generated from a fixed seed.
"""
import json
import random
import sys

from jsonschema import Draft7Validator

HAND = [
    ({"type": "integer"}, [1, 1.0, 1.5, "1", True, None, -7, 10**15]),
    ({"type": "number"}, [1, 1.5, "1.5", False, None]),
    ({"type": ["string", "null"]}, ["a", None, 0, []]),
    ({"type": "boolean"}, [True, False, 0, "true"]),
    ({"type": "array"}, [[], [1], {}, "[]"]),
    ({"type": "object"}, [{}, {"a": 1}, [], None]),
    ({"required": ["total", "currency"]}, [{"total": 1, "currency": "EUR"}, {"total": 1}, {}, "not an object"]),
    ({"properties": {"price": {"type": "number", "minimum": 0}}}, [{"price": 0}, {"price": -1}, {"price": "1"}, {"other": -1}]),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": False}, [{"a": "x"}, {"a": "x", "b": 1}, {}]),
    ({"additionalProperties": {"type": "integer"}}, [{"a": 1, "b": 2}, {"a": 1, "b": "2"}, {"a": 2.0}]),
    ({"enum": ["red", "green", 1]}, ["red", "blue", 1, 1.0, True]),
    ({"enum": [[1, 2], {"a": 1}]}, [[1, 2], [1.0, 2.0], [2, 1], {"a": 1.0}, {"a": 1, "b": 2}]),
    ({"const": 3}, [3, 3.0, "3", 4]),
    ({"pattern": "^[A-Z]{3}-\\d+$"}, ["ABC-12", "abc-12", "ABCD-1", 12]),
    ({"pattern": "ab"}, ["xxabyy", "a b", ""]),
    ({"pattern": "^[A-Z]{2,3}$"}, ["AB", "ABC", "A", "ABCD", "ab"]),
    ({"pattern": "^\\w+@\\w+\\.com$"}, ["a_1@b.com", "a@b.org", "a@b.comx", "@b.com"]),
    ({"pattern": "[^a-c]"}, ["abc", "abcd", "", "cab1"]),
    ({"pattern": "^a?b*c+$"}, ["c", "abbbc", "ac", "ab", "bcc", "aac"]),
    ({"pattern": "^.{2}$"}, ["ab", "a", "abc", "😀😀", "é!"]),
    ({"pattern": "\\."}, ["a.b", "ab"]),
    ({"pattern": "^-?\\d+(\\.\\d+)?$"}, ["12", "-1.5", "1.", "a1"]),
    ({"pattern": "^[a-z0-9_-]{3,16}$"}, ["user_name-1", "ab", "UPPER", "a" * 17]),
    ({"pattern": "\\s"}, ["a b", "ab", "a\tb"]),
    ({"minimum": 1, "maximum": 10}, [1, 10, 0.999, 10.5, "5"]),
    ({"exclusiveMinimum": 0, "exclusiveMaximum": 1}, [0, 0.5, 1, -1]),
    ({"minLength": 2, "maxLength": 3}, ["a", "ab", "abc", "abcd", "😀😀", "😀", "e\u0301", "é", "日本語", "日本語テ", 5]),
    ({"maxLength": 1}, ["😀", "👍🏽", "\u00e9", "e\u0301"]),
    ({"items": {"type": "integer"}, "minItems": 1, "maxItems": 3}, [[1], [], [1, 2, 3, 4], [1, "2"], [1.0, 2.0], "x"]),
    ({"items": [{"type": "string"}, {"type": "integer"}]}, [["a", 1], ["a", "b"], [1], ["a", 1, None], []]),
    ({"items": {"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}},
     [[{"sku": "A", "qty": 1}], [{"sku": "A", "qty": 0}], [{"qty": 1}], [{"sku": 1}], []]),
    ({"type": "object", "properties": {"address": {"type": "object", "required": ["city"],
      "properties": {"city": {"type": "string", "minLength": 1}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
      "additionalProperties": False}}}, [{"address": {"city": "Paris"}}, {"address": {"city": ""}}, {"address": {"zip": "7500"}},
      {"address": {"city": "Paris", "country": "FR"}}, {"address": "Paris"}]),
    (True, [1, "x", None]),
    (False, [1, "x", None]),
    ({"properties": {"a": False}}, [{"a": 1}, {"b": 1}]),
    ({"type": "integer", "enum": [1, 2], "minimum": 2}, [1, 2, 3, 2.0]),
]

KEYWORD_MAKERS = [
    lambda r: {"type": r.choice(["integer", "number", "string", "boolean", "array", "object", "null"])},
    lambda r: {"type": r.sample(["integer", "number", "string", "boolean", "null"], 2)},
    lambda r: {"minimum": r.randint(-5, 5)},
    lambda r: {"maximum": r.randint(-5, 5)},
    lambda r: {"exclusiveMinimum": r.randint(-5, 5)},
    lambda r: {"exclusiveMaximum": r.randint(-5, 5)},
    lambda r: {"minLength": r.randint(0, 4)},
    lambda r: {"maxLength": r.randint(0, 4)},
    lambda r: {"pattern": r.choice(["^a", "b$", "[0-9]", "^[a-z]+$", "x{2}", "^[ab]{1,2}$", "a.b", "^\\d*$", "[^a]", "^x?a+$", "\\w{2}"])},
    lambda r: {"enum": r.sample([1, 2.5, "a", "b", True, None, [1], {"k": 1}], 3)},
    lambda r: {"minItems": r.randint(0, 3)},
    lambda r: {"maxItems": r.randint(0, 3)},
    lambda r: {"required": r.sample(["a", "b", "c"], r.randint(1, 2))},
]

def random_schema(r, depth=0):
    schema = {}
    for maker in r.sample(KEYWORD_MAKERS, r.randint(1, 3)):
        schema.update(maker(r))
    if depth < 2 and r.random() < 0.4:
        schema["properties"] = {name: random_schema(r, depth + 1) for name in r.sample(["a", "b", "c"], r.randint(1, 2))}
        if r.random() < 0.5:
            schema["additionalProperties"] = r.choice([False, True, {"type": "integer"}])
    if depth < 2 and r.random() < 0.3:
        schema["items"] = random_schema(r, depth + 1)
    return schema

def random_value(r, depth=0):
    kinds = ["int", "float", "whole_float", "string", "bool", "null"] + (["array", "object"] if depth < 2 else [])
    kind = r.choice(kinds)
    if kind == "int": return r.randint(-6, 6)
    if kind == "float": return r.choice([-2.5, 0.5, 2.5, 3.75])
    if kind == "whole_float": return float(r.randint(-3, 3))
    if kind == "string": return r.choice(["", "a", "ab", "abc", "b", "x1", "xx", "aXb", "😀", "é", "e\u0301", "日本"])
    if kind == "bool": return r.choice([True, False])
    if kind == "null": return None
    if kind == "array": return [random_value(r, depth + 1) for _ in range(r.randint(0, 3))]
    return {name: random_value(r, depth + 1) for name in r.sample(["a", "b", "c", "d"], r.randint(0, 3))}

def main():
    cases = []
    for schema, instances in HAND:
        for instance in instances:
            cases.append({"schema": schema, "instance": instance, "valid": Draft7Validator(schema).is_valid(instance)})
    r = random.Random(20261123)
    for _ in range(600):
        schema = random_schema(r)
        instance = random_value(r)
        cases.append({"schema": schema, "instance": instance, "valid": Draft7Validator(schema).is_valid(instance)})
    json.dump({"validator": "python-jsonschema Draft7Validator", "cases": cases}, sys.stdout, indent=None, ensure_ascii=False)
    sys.stdout.write("\n")

main()
