from pinreport.base.probe_keys import describe_key, split_metric


def test_describe_key_mirrors_cpp():
    assert describe_key("cuda.free").direction == "available"
    assert describe_key("nvml.0.used").direction == "usage"
    assert describe_key("cuda.total").direction == "fixed"
    assert describe_key("dxgi.local.budget").direction == "fixed"
    assert describe_key("dxgi.nonlocal.usage").budget == "shared"
    assert describe_key("pdh.process.shared").budget == "shared"
    assert describe_key("pdh.process.dedicated").budget == "dedicated"


def test_split_metric():
    assert split_metric("cost.after_first_use.nvml.0.used") == ("cost.after_first_use", "nvml.0.used")
    assert split_metric("residual.after_free.cuda.free") == ("residual.after_free", "cuda.free")
    assert split_metric("time.alloc_ms") is None
