"""labels.py: how every output names sizes, probes and anchors (read by render/ and formats/)."""

from pinreport.base.labels import anchor, headline_key, probe_label, size_label


def test_size_label_exact_binary_sizes_as_scenarios_write_them():
    assert size_label(64 * 1024**2) == "64MiB"
    assert size_label(4 * 1024**3) == "4GiB"
    assert size_label(3 * 1024) == "3KiB"


def test_probe_label_names_each_probe():
    assert probe_label("cuda.free") == "cudaMemGetInfo"
    assert probe_label("nvml.1.used") == "NVML used (GPU 1)"
    assert probe_label("dxgi.local.usage") == "DXGI LOCAL"
    assert probe_label("pdh.gpu.dedicated") == "PDH gpu.dedicated"
    assert probe_label("capacity.loss") == "capacity loss (largest cudaMalloc block)"


def test_headline_key_prefers_cudamemgetinfo_then_a_dedicated_key_then_the_capacity_loss():
    assert headline_key({"nvml.0.used", "cuda.free"}) == "cuda.free"
    assert headline_key({"nvml.0.used", "nvml.0.total"}) == "nvml.0.used"
    assert headline_key({"capacity.loss"}) == "capacity.loss"
    assert headline_key({"nvml.0.total"}) is None


def test_anchor():
    assert anchor("cost", "quick/x", "cudaHostAlloc:mapped") == "cost-quick-x-cudaHostAlloc-mapped"
