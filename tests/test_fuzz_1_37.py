"""Deterministic fuzzing of the 1.37 rules: mutants of the 1.36/1.37 cases, validated, defaulted and
reviewed under `--kubernetes-version 1.37` with every DRA gate on. No mutant may yield an internal error."""

from __future__ import annotations

import copy
import random

import pytest

from cases_1_37 import CASES, Case
from test_fuzz_admission import NOW, _request, check_response, mutate_once
from test_kubernetes_1_37 import PROFILE_1_37
from webhook import admit

MUTANTS_PER_CASE = 80


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_fuzz_1_37_mutants(case: Case):
    rng = random.Random(f"1.37-{case.name}")
    for n in range(MUTANTS_PER_CASE):
        mutant = mutate_once(case.obj, rng)
        context = f"{case.name} mutant {n}"
        check_response(admit.validate(_request(case.obj, mutant), profile=PROFILE_1_37), context + " CREATE")
        check_response(admit.validate(_request(case.obj, mutant, operation="UPDATE", old=copy.deepcopy(case.obj)),
                                      profile=PROFILE_1_37), context + " UPDATE")
        check_response(admit.validate(_request(case.obj, copy.deepcopy(case.obj), operation="UPDATE", old=mutant),
                                      profile=PROFILE_1_37), context + " UPDATE old")
        check_response(admit.review(_request(case.obj, mutant), profile=PROFILE_1_37, now=NOW), context + " review")
        if case.sub_resource:
            check_response(admit.validate(_request(case.obj, mutant, operation="UPDATE", old=case.old,
                                                   sub_resource="status"), profile=PROFILE_1_37), context + " status")
