"""Method and wording faults a practitioner flagged, each pinned by a test.

- Gaudi: 21 of each chip's 24 ports link the 8 chips inside an HLS box, only 3 leave it;
  Gaudi 2 scale-up 21 × 100 Gb/s = 525 GB/s both ways, Gaudi 3 21 × 200 Gb/s = 1,050
  (https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html).
- Infinity Fabric: 7 links of 128 GB/s (both ways) join each MI300X to its 7 peers at once
  (https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html).
- JEDEC HBM3: 6.4 Gb/s per pin, 819 GB/s per stack
  (https://www.jedec.org/news/pressreleases/jedec-publishes-hbm3-update-high-bandwidth-memory-hbm-standard).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from studyapp.catalog import load_catalog
from studyapp.catalog.posts import load_post
from studyapp.cli import main
from studyapp.questions.generators import get_family

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("chip,gbit", [("gaudi2", 100), ("gaudi3", 200)])
def test_gaudi_scale_up_counts_the_21_ports_to_its_peers(chip: str, gbit: int) -> None:
    assert load_catalog().accelerators[chip].scale_up_gb_s == 21 * gbit / 8 * 2


def test_gaudi_ethernet_never_adds_a_servers_internal_ports() -> None:
    family = get_family("gaudi-ethernet")
    for seed in range(120):
        q = family.generate(seed, "en", {})
        if q.params["chips"] > 1:
            assert q.params["variant"] == "scale-out" and q.params["ports"] == 3, q.prompt
        if q.params["variant"] == "scale-out":
            assert "only 3 of" in q.prompt


def test_ring_over_infinity_fabric_uses_all_seven_links() -> None:
    q = get_family("ring-allreduce").generate(
        2, "en", {"links": ["infinity-fabric-mi300"], "gpu_counts": [8]})
    assert q.params["links"] == 7
    assert q.params["bandwidth_bytes_s"] == pytest.approx(7 * 64e9)
    assert "448 GB/s" in q.explanation


def test_tpu_pod_memory_invents_no_google_figure() -> None:
    family = get_family("tpu-pod")
    for seed in range(40):
        for lang in ("en", "es"):
            q = family.generate(seed, lang, {"gpus": ["tpu-v5p"], "ask": ["memory"]})
            assert "0.851" not in q.explanation and "0,851" not in q.explanation
            assert "Google" not in q.explanation
            assert "10^15" in q.explanation


def test_posts_state_what_their_sources_say() -> None:
    h100 = load_post("h100", "en").body
    assert "faster than anything" not in h100
    assert "76%" in h100 and "43%" in h100  # H200 vs H100: 141/80 and 4.8/3.35
    for lang in ("en", "es"):
        hbm = load_post("hbm-kv-cache", lang)
        hosts = {str(u).split("/")[2] for u in hbm.sources}
        assert "www.jedec.org" in hosts and "www.micron.com" in hosts
        assert not hosts & {"soylentnews.org", "tweakers.net"}
        blackwell = load_post("blackwell", lang).body
        assert "186 GB usable" not in blackwell and "186 GB\nutilizables" not in blackwell


def test_calc_kv_names_the_cache_dtype() -> None:
    out = CliRunner().invoke(main, ["calc", "kv", "--model", "llama-3.1-8b", "--dtype", "fp8"])
    assert out.exit_code == 0
    assert "KV cache dtype" in out.output and "weights dtype" not in out.output


def test_spanish_terms() -> None:
    strings = yaml.safe_load((ROOT / "content/i18n/generators.es.yaml").read_text("utf-8"))
    for key in ("gen.ridge.why", "gen.ridge.attainable_prompt", "gen.ridge.attainable_explain"):
        assert "kernel" in strings[key] and "núcleo" not in strings[key]
    # a TPU slice is a "porción" in Google's Spanish docs, never left in English
    tpu = load_post("tpu", "es").body
    assert "porciones" in tpu and "slice" not in tpu
    assert load_post("storage-checkpoints", "es").title == "Almacenamiento y checkpoints"
    peers = [v for v in strings.values() if isinstance(v, str) and "compañer" in v]
    assert peers and all("chip compañero" in v or "chips compañeros" in v for v in peers)


def test_fit_questions_keep_gpt_oss_whole_layers_and_window_layers_apart() -> None:
    """gpt-oss-120b: 18 of 36 layers keep only the last 128 tokens, the others the whole
    context (config.json sliding_window 128, layer_types; huggingface.co/openai/gpt-oss-120b).
    At 4,096 tokens a layer keeps 2,112 tokens on average, not 4,096 nor 128."""
    from studyapp.questions.generators.audit import RECOMPUTE

    seen = 0
    for seed in range(40):
        q = get_family("fits-on-gpu").generate(seed, "en", {"models": ["gpt-oss-120b"]})
        given = q.params["given"]
        assert RECOMPUTE["fits-on-gpu"](given, q) == pytest.approx(
            q.params["decision_ratio"], rel=1e-3)
        if given["context"] > 128:
            seen += 1
            assert (given["window"], given["window_layers"], given["layers"]) == (128, 18, 36)
            assert "Only 18 of its 36 layers keep just the last 128 tokens" in q.prompt
            kept = (18 * 128 + 18 * given["context"]) / 36
            assert f"{kept:,.0f} tokens kept per layer on average" in q.explanation
    assert seen
