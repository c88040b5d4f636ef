"""The method registry next to Verdict: declared by the emitting modules, looked up by name."""

from __future__ import annotations

import pytest

from benchverdict.methods import FAMILIES, METHODS, MethodInfo, method_info, register_method


def test_every_module_declares_its_methods_with_a_family_and_one_primary_voter():
    for module in ("tuning", "dse", "ranks", "lmem"):
        __import__(f"benchverdict.{module}")
    assert {info.family for info in METHODS.values()} >= set(FAMILIES)
    primaries = {}
    for info in METHODS.values():
        assert info.method.split(".")[0] == info.family  # a module declares only its own
        if info.primary:
            primaries.setdefault(info.family, []).append(info.method)
    # The families that vote on the final-budget ranking have a primary method; the score
    # distributions (single draws) have none and no voting method at all.
    assert set(primaries) == {"ranks", "lmem", "tuning"}
    # (Stand-in "<family>.fake" methods that other test modules register are not modules'.)
    assert not any(info.votes for info in METHODS.values()
                   if info.family == "dse" and not info.method.endswith(".fake"))
    # The example of a wrong guess: the sign test pairs by benchmark.
    assert method_info("ranks.sign_test").paired is True


def test_parametrised_names_resolve_and_unknown_ones_fail_with_the_fix():
    assert method_info("dse.cvar_0.95") is method_info("dse.cvar")
    assert method_info("dse.cvar_0.5").aspect == "upper tail"
    with pytest.raises(KeyError, match="register_method"):
        method_info("ranks.made_up")
    with pytest.raises(KeyError, match="not registered"):
        method_info("tuning.median_band_3")  # not parametrised: no prefix match


def test_registering_is_idempotent_but_a_name_belongs_to_one_module():
    kw = dict(paired=True, unit="benchmark", aspect="ranks", assumptions="none",
              error_control="per comparison")
    first = register_method("ranks.test_registry_probe", "ranks", "probe", **kw)
    assert register_method("ranks.test_registry_probe", "ranks", "probe", **kw) == first
    with pytest.raises(ValueError, match="already registered"):
        register_method("ranks.test_registry_probe", "ranks", "probe", **{**kw, "paired": False})
    del METHODS["ranks.test_registry_probe"]


@pytest.mark.parametrize(("field", "value", "match"), [
    ("family", "bayes", "family"), ("aspect", "middle", "aspect"),
    ("error_control", "none", "error_control"), ("method", "nodot", "module.method"),
])
def test_method_info_validates_its_traits(field, value, match):
    kw = dict(method="ranks.x", family="ranks", label="x", paired=True, unit="u",
              aspect="ranks", assumptions="a", error_control="per comparison")
    with pytest.raises(ValueError, match=match):
        MethodInfo(**{**kw, field: value})
    with pytest.raises(ValueError, match="primary"):
        MethodInfo(**kw, primary=True)  # a primary method must vote
