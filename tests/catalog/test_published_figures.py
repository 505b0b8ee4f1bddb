"""Published figures the catalog must match, each with the page that prints it.

A row is (table, entry id, field, published value, unit, source URL). ``rel``
allows for rounding where the catalog keeps the vendor's rounded figure
(e.g. 989 for NVIDIA's 989.4 TFLOPS). GiB figures are converted to GB here,
the way the catalog stores them.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from studyapp.catalog import Catalog, load_catalog_from

CONTENT = Path(__file__).resolve().parents[2] / "content"
GIB = 2**30 / 1e9


class Published(NamedTuple):
    table: str
    entry: str
    field: str
    value: float
    unit: str
    source: str
    rel: float = 1e-9


P = Published

TRAINIUM3 = (
    "https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.1/_sources/about-neuron/arch/neuron-hardware/trainium3.rst"
)
"""AWS Neuron's Trainium3 page (December 2025): the MXFP8/MXFP4 and BF16 rates, HBM, NeuronLink."""
TRN3 = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trn3-arch.html"

FIGURES: list[Published] = [
    # ---- NVIDIA A100 / H100 / H200
    P("accelerators", "a100-80gb", "bf16_dense_tflops", 312, "TFLOPS",
      "https://glennklockwood.com/garden/processors/A100"),
    P("accelerators", "a100-80gb", "memory_bandwidth_tb_s", 2.039, "TB/s",
      "https://www.thundercompute.com/blog/nvidia-a100-specs-full-guide"),
    P("accelerators", "a100-80gb", "tdp_w", 400, "W",
      "https://www.thundercompute.com/blog/nvidia-a100-specs-full-guide"),
    P("accelerators", "h100-sxm", "memory_gb", 80, "GB",
      "https://glennklockwood.com/garden/processors/h100"),
    P("accelerators", "h100-sxm", "memory_bandwidth_tb_s", 3.35, "TB/s",
      "https://lzwjava.github.io/nvidia-h200-gpu-specs-en"),
    P("accelerators", "h100-sxm", "bf16_dense_tflops", 989.4, "TFLOPS",
      "https://glennklockwood.com/garden/processors/h100", rel=1e-3),
    P("accelerators", "h100-sxm", "fp8_dense_tflops", 1978.9, "TFLOPS",
      "https://glennklockwood.com/garden/processors/h100", rel=1e-3),
    P("accelerators", "h100-sxm", "tdp_w", 700, "W",
      "https://glennklockwood.com/garden/processors/h100"),
    P("accelerators", "h100-pcie", "tdp_w", 350, "W",
      "https://manuals.plus/m/56b0c3ef7d0a1c470c0af8f05a0bd1f29a778007472ba941201fbbb185c9bccd"),
    P("accelerators", "h200-sxm", "memory_gb", 141, "GB",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json"),
    P("accelerators", "h200-sxm", "tdp_w", 700, "W",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json"),
    P("accelerators", "h200-sxm", "scale_up_gb_s", 900, "GB/s",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json"),
    P("accelerators", "h200-sxm", "memory_bandwidth_tb_s", 4.8, "TB/s",
      "https://geektopia.es/es/technology/2023/11/13/noticias/nvidia-anuncia-la-aceleradora-h200-tiene-141-gb-de-hbm3e.html"),
    # ---- NVIDIA Blackwell
    P("accelerators", "b200", "memory_gb", 180, "GB",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v6.0/main/closed/Nebius/systems/nebius_b200_n1.json"),
    P("accelerators", "b200", "tdp_w", 1000, "W",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v6.0/main/closed/Nebius/systems/nebius_b200_n1.json"),
    P("accelerators", "b200", "bf16_dense_tflops", 2250, "TFLOPS",
      "https://glennklockwood.com/garden/processors/B200"),
    P("accelerators", "b200", "fp8_dense_tflops", 4500, "TFLOPS",
      "https://glennklockwood.com/garden/processors/B200"),
    P("accelerators", "b200", "fp4_dense_tflops", 9000, "TFLOPS",
      "https://glennklockwood.com/garden/processors/B200"),
    P("accelerators", "gb200", "memory_gb", 186, "GB",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v6.1/main/closed/Crusoe/systems/GB200-NVL72_GB200-186GB_aarch64x16_Dynamo.json"),
    P("accelerators", "gb200", "bf16_dense_tflops", 2500, "TFLOPS",
      "https://glennklockwood.com/garden/processors/B200"),
    P("accelerators", "gb200", "fp4_dense_tflops", 10000, "TFLOPS",
      "https://glennklockwood.com/garden/processors/B200"),
    # ---- AMD Instinct
    P("accelerators", "mi300x", "memory_gb", 192, "GB",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/AMD/systems/8xMI300X_2xEPYC-9374F.json"),
    P("accelerators", "mi300x", "tdp_w", 750, "W",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/AMD/systems/8xMI300X_2xEPYC-9374F.json"),
    P("accelerators", "mi300x", "memory_bandwidth_tb_s", 5.3, "TB/s",
      "https://docs.vultr.com/inference-cookbook/rocm/getting-started/hardware-requirements"),
    P("accelerators", "mi300x", "bf16_dense_tflops", 1307.4, "TFLOPS",
      "https://raw.githubusercontent.com/alpharomercoma/MI300X-vs-H200/6077fdc7bfc215171c33435b7cd76ca4c5f2b236/METHODOLOGY.md"),
    P("accelerators", "mi300x", "fp8_dense_tflops", 2614.9, "TFLOPS",
      "https://raw.githubusercontent.com/alpharomercoma/MI300X-vs-H200/6077fdc7bfc215171c33435b7cd76ca4c5f2b236/METHODOLOGY.md"),
    P("accelerators", "mi325x", "memory_gb", 256, "GB",
      "https://docs.vultr.com/inference-cookbook/rocm/getting-started/hardware-requirements"),
    P("accelerators", "mi325x", "memory_bandwidth_tb_s", 6.0, "TB/s",
      "https://docs.vultr.com/inference-cookbook/rocm/getting-started/hardware-requirements"),
    P("accelerators", "mi325x", "fp8_dense_tflops", 2614.9, "TFLOPS",
      "https://awesomeagents.ai/hardware/amd-mi325x"),
    P("accelerators", "mi350x", "tdp_w", 1000, "W",
      "https://wccftech.com/amd-instinct-mi350-gpuai-hardware-powerhouse-3nm-3d-chiplet-cdna-4-185-billion-transistors-1400w-tbp-over-4000b-llm-support//amp/"),
    P("accelerators", "mi355x", "tdp_w", 1400, "W",
      "https://wccftech.com/amd-instinct-mi350-gpuai-hardware-powerhouse-3nm-3d-chiplet-cdna-4-185-billion-transistors-1400w-tbp-over-4000b-llm-support//amp/"),
    P("accelerators", "mi355x", "memory_gb", 288, "GB",
      "https://www.tomshardware.com/pc-components/gpus/amds-instinct-mi355x-accelerator-will-consume-1-400-watts"),
    P("accelerators", "mi355x", "memory_bandwidth_tb_s", 8, "TB/s",
      "https://www.tomshardware.com/pc-components/gpus/amds-instinct-mi355x-accelerator-will-consume-1-400-watts"),
    P("accelerators", "mi355x", "fp8_dense_tflops", 5000, "TFLOPS",
      "https://www.world-today-news.com/?p=7253162", rel=0.01),  # "five petaflops", rounded
    # AMD MI355X brochure: "MXFP4 10.1 PF" (dense; the FP8 "10.1 PF" beside it is sparse)
    P("accelerators", "mi355x", "fp4_dense_tflops", 10100, "TFLOPS",
      "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/product-briefs/"
      "amd-instinct-mi355x-gpu-brochure.pdf", rel=0.005),
    P("accelerators", "mi355x", "bf16_dense_tflops", 2500, "TFLOPS",
      "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html", rel=0.01),
    # ---- Google TPU
    P("accelerators", "tpu-v5e", "bf16_dense_tflops", 197, "TFLOPS",
      "https://docs.cloud.google.com/tpu/docs/v5e"),
    P("accelerators", "tpu-v5e", "memory_bandwidth_tb_s", 0.819, "TB/s",
      "https://docs.cloud.google.com/tpu/docs/v5e"),
    P("accelerators", "tpu-v5e", "scale_up_gb_s", 400, "GB/s",
      "https://docs.cloud.google.com/tpu/docs/v5e"),
    P("accelerators", "tpu-v5p", "bf16_dense_tflops", 459, "TFLOPS",
      "https://docs.cloud.google.com/tpu/docs/v5p-training?authuser=1"),
    P("accelerators", "tpu-v5p", "fp8_dense_tflops", 459, "TFLOPS",
      "https://docs.cloud.google.com/tpu/docs/v5p-training?authuser=1"),
    P("accelerators", "tpu-v5p", "memory_gb", 95, "GiB",
      "https://docs.cloud.google.com/tpu/docs/v5p-training?authuser=1", rel=1e-4),
    P("accelerators", "tpu-v5p", "memory_bandwidth_tb_s", 2.765, "TB/s",
      "https://docs.cloud.google.com/tpu/docs/v5p-training?authuser=1"),
    P("accelerators", "tpu-v5p", "scale_up_gb_s", 1200, "GB/s",
      "https://docs.cloud.google.com/tpu/docs/v5p-training?authuser=1"),
    P("accelerators", "tpu-v6e", "bf16_dense_tflops", 918, "TFLOPS",
      "https://docs.cloud.google.com/tpu/docs/v6e.md.txt"),
    P("accelerators", "tpu-v6e", "memory_gb", 32, "GB",
      "https://docs.cloud.google.com/tpu/docs/v6e.md.txt"),
    P("accelerators", "tpu-v6e", "memory_bandwidth_tb_s", 1.638, "TB/s",
      "https://docs.cloud.google.com/tpu/docs/v6e.md.txt"),
    P("accelerators", "tpu-v6e", "scale_up_gb_s", 800, "GB/s",
      "https://docs.cloud.google.com/tpu/docs/v6e.md.txt"),
    P("accelerators", "tpu-v7", "bf16_dense_tflops", 2307, "TFLOPS",
      "https://docs.cloud.google.com/tpu/docs/tpu7x?authuser=101"),
    P("accelerators", "tpu-v7", "fp8_dense_tflops", 4614, "TFLOPS",
      "https://docs.cloud.google.com/tpu/docs/ironwood-performance"),
    P("accelerators", "tpu-v7", "memory_gb", 192, "GiB",
      "https://docs.cloud.google.com/tpu/docs/tpu7x?authuser=101", rel=1e-4),
    P("accelerators", "tpu-v7", "memory_bandwidth_tb_s", 7.38, "TB/s",
      "https://docs.cloud.google.com/tpu/docs/tpu7x"),  # table: 7380 GBps
    P("accelerators", "tpu-v7", "scale_up_gb_s", 1200, "GB/s",
      "https://docs.cloud.google.com/tpu/docs/tpu7x"),  # bidirectional ICI per chip
    P("interconnects", "tpu-ici-v7", "bandwidth_gb_s", 1200, "GB/s",
      "https://docs.cloud.google.com/tpu/docs/tpu7x"),
    # ---- AWS Trainium
    P("accelerators", "trainium1", "bf16_dense_tflops", 190, "TFLOPS",
      "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trainium.html"),
    P("accelerators", "trainium1", "memory_gb", 32, "GiB",
      "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trainium.html",
      rel=1e-4),
    P("accelerators", "trainium1", "scale_up_gb_s", 384, "GB/s",
      "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
    P("accelerators", "trainium2", "bf16_dense_tflops", 667, "TFLOPS",
      "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
    P("accelerators", "trainium2", "fp8_dense_tflops", 1299, "TFLOPS",
      "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
    P("accelerators", "trainium2", "memory_gb", 96, "GiB",
      "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst",
      rel=1e-4),
    P("accelerators", "trainium2", "memory_bandwidth_tb_s", 2.9, "TB/s",
      "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
    P("accelerators", "trainium2", "scale_up_gb_s", 1280, "GB/s",
      "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
    P("accelerators", "trainium3", "bf16_dense_tflops", 671, "TFLOPS", TRAINIUM3),
    P("accelerators", "trainium3", "fp8_dense_tflops", 2517, "TFLOPS", TRAINIUM3),  # MXFP8
    P("accelerators", "trainium3", "fp4_dense_tflops", 2517, "TFLOPS", TRAINIUM3),  # MXFP4
    P("accelerators", "trainium3", "memory_gb", 144, "GiB", TRAINIUM3, rel=1e-4),
    P("accelerators", "trainium3", "memory_bandwidth_tb_s", 4.9, "TB/s", TRAINIUM3),
    P("accelerators", "trainium3", "scale_up_gb_s", 2560, "GB/s", TRAINIUM3),
    P("interconnects", "neuronlink-v4", "bandwidth_gb_s", 2560, "GB/s", TRAINIUM3),
    P("systems", "trn3-ultraserver-64", "gpus", 64, "chips", TRN3),
    P("systems", "trn3-ultraserver-144", "gpus", 144, "chips", TRN3),
    # ---- Intel Gaudi
    P("accelerators", "gaudi2", "bf16_dense_tflops", 432, "TFLOPS",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi2", "memory_gb", 96, "GB",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi2", "tdp_w", 600, "W",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi3", "bf16_dense_tflops", 1835, "TFLOPS",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi3", "fp8_dense_tflops", 1835, "TFLOPS",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi3", "memory_gb", 128, "GB",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi3", "tdp_w", 900, "W",
      "https://www.sgpjbg.com/baogao/465025.html"),
    P("accelerators", "gaudi3", "memory_bandwidth_tb_s", 3.7, "TB/s",
      "https://www.theregister.com/2024/04/09/intel_gaudi_ai_accelerator/"),
    P("accelerators", "gaudi3", "scale_up_gb_s", 1050, "GB/s",
      "https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html"),
    # ---- interconnects
    P("interconnects", "nvlink-4", "bandwidth_gb_s", 900, "GB/s",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json"),
    P("interconnects", "nvlink-5", "bandwidth_gb_s", 14400 / 8, "GB/s",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v6.0/main/closed/Nebius/systems/nebius_b200_n1.json"),
    P("interconnects", "ib-ndr", "gbit_s", 400, "Gb/s",
      "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-components.html"),
    P("interconnects", "ib-ndr", "bandwidth_gb_s", 400 / 8, "GB/s",
      "https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces"),
    P("interconnects", "ib-xdr", "gbit_s", 800, "Gb/s",
      "https://docs.nvidia.com/networking/display/XDRSwitchesHWUM/Document-Revision-History"),
    P("interconnects", "roce-200g", "bandwidth_gb_s", 25, "GB/s",
      "https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html"),
    P("interconnects", "pcie-gen5", "bandwidth_gb_s", 128 / 2, "GB/s",
      "https://glennklockwood.com/garden/processors/h100"),
    # ---- systems
    P("systems", "hgx-h100", "total_memory_gb", 640, "GB",
      "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/dgx-superpod-components.html"),
    P("systems", "hgx-b200", "total_memory_gb", 1440, "GB",
      "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-components.html"),
    P("systems", "hgx-b200", "aggregate_scale_up_gb_s", 14400, "GB/s",
      "https://raw.githubusercontent.com/mlcommons/inference_results_v6.0/main/closed/Nebius/systems/nebius_b200_n1.json"),
    P("systems", "gb200-nvl72", "gpus", 72, "GPUs",
      "https://developer.nvidia.com/blog/nvidia-gb200-nvl72-delivers-trillion-parameter-llm-training-and-real-time-inference/"),
    P("systems", "gb200-nvl72", "total_memory_gb", 13400, "GB",
      "https://www.nvidia.com/en-us/data-center/gb200-nvl72/", rel=0.005),
    # ---- models
    P("models", "llama-2-7b", "kv_heads", 32, "heads",
      "https://github.com/microsoft/Olive/blob/main/examples/llm/config.py"),
    P("models", "llama-2-70b", "kv_heads", 8, "heads",
      "https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json"),
    P("models", "llama-3.1-8b", "layers", 32, "layers",
      "https://github.com/citsjtu2020/LLM-Prof/blob/main/sglang/Model_Config.md"),
    P("models", "llama-3.1-8b", "vocab_size", 128256, "tokens",
      "https://github.com/citsjtu2020/LLM-Prof/blob/main/sglang/Model_Config.md"),
    P("models", "llama-3.1-8b", "kv_heads", 8, "heads",
      "https://github.com/citsjtu2020/LLM-Prof/blob/main/sglang/Model_Config.md"),
    P("models", "deepseek-v3", "vocab_size", 129280, "tokens",
      "https://apxml.com/models/deepseek-v3"),
    P("models", "llama-3.1-70b", "layers", 80, "layers",
      "https://github.com/vulkomilev/oumi/blob/main/configs/recipes/llama3_1/README.md"),
    P("models", "mistral-7b", "context_length", 8192, "tokens",
      "https://arxiv.org/abs/2310.06825"),
    P("models", "mixtral-8x7b", "context_length", 32768, "tokens",
      "https://arxiv.org/abs/2401.04088"),
    P("models", "mixtral-8x7b", "params_b", 46.7, "B params",
      "https://apxml.com/models/mixtral-8x7b-v0-1"),
    P("models", "mixtral-8x7b", "active_params_b", 12.9, "B params",
      "https://apxml.com/models/mixtral-8x7b-v0-1"),
    P("models", "qwen2.5-72b", "layers", 80, "layers",
      "https://huggingface.co/Qwen/Qwen2.5-72B-Instruct/blob/main/config.json"),
    P("models", "qwen2.5-72b", "kv_heads", 8, "heads",
      "https://huggingface.co/Qwen/Qwen2.5-72B-Instruct/blob/main/config.json"),
    P("models", "deepseek-v3", "kv_lora_rank", 512, "dims",
      "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json"),
    P("models", "deepseek-v3", "qk_rope_head_dim", 64, "dims",
      "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json"),
    P("models", "deepseek-v3", "layers", 61, "layers",
      "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json"),
    P("models", "deepseek-v3", "params_b", 671, "B params",
      "https://arxiv.org/abs/2412.19437"),
    P("models", "deepseek-v3", "active_params_b", 37, "B params",
      "https://arxiv.org/abs/2412.19437"),
    P("models", "gpt-3-175b", "hidden_size", 12288, "dims",
      "https://arxiv.org/abs/2005.14165"),
    # ---- Blackwell Ultra. HGX B300 board: FP4 "144 PFLOPS | 108 PFLOPS" (with | without
    # sparsity), FP8 72 PF and BF16 36 PF with sparsity, over 8 GPUs
    P("accelerators", "b300", "fp4_dense_tflops", 108_000 / 8, "TFLOPS",
      "https://www.nvidia.com/en-us/data-center/hgx/"),
    P("accelerators", "b300", "fp8_dense_tflops", 72_000 / 8 / 2, "TFLOPS",
      "https://www.nvidia.com/en-us/data-center/hgx/"),
    P("accelerators", "b300", "bf16_dense_tflops", 36_000 / 8 / 2, "TFLOPS",
      "https://www.nvidia.com/en-us/data-center/hgx/"),
    P("accelerators", "b300", "memory_gb", 288, "GB",
      "https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era"),
    P("accelerators", "b300", "memory_bandwidth_tb_s", 8, "TB/s",
      "https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era"),
    # GB300 NVL72 rack: FP4 "1,440 PF | 1,080 PF", FP8 720 PF and BF16 360 PF (sparse), 72 GPUs
    P("accelerators", "gb300", "fp4_dense_tflops", 15_000, "TFLOPS",
      "https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era"),
    P("accelerators", "gb300", "fp8_dense_tflops", 720_000 / 72 / 2, "TFLOPS",
      "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    P("accelerators", "gb300", "bf16_dense_tflops", 360_000 / 72 / 2, "TFLOPS",
      "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    P("accelerators", "gb300", "memory_gb", 288, "GB",
      "https://developer.nvidia.com/blog/inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era"),
    P("systems", "gb300-nvl72", "gpus", 72, "GPUs",
      "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    P("systems", "gb300-nvl72", "aggregate_scale_up_gb_s", 72 * 1800, "GB/s",
      "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    P("systems", "hgx-b300", "aggregate_scale_up_gb_s", 14_400, "GB/s",
      "https://docs.nvidia.com/reference-architectures/hgx-ai-factory/abstract.md"),
    P("models", "gpt-3-175b", "layers", 96, "layers",
      "https://arxiv.org/abs/2005.14165"),
    P("models", "gpt-3-175b", "context_length", 2048, "tokens",
      "https://arxiv.org/abs/2005.14165"),
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog_from(CONTENT)


def test_table_is_large_enough() -> None:
    assert len(FIGURES) >= 40
    assert len({(f.table, f.entry, f.field) for f in FIGURES}) == len(FIGURES)
    for figure in FIGURES:
        assert figure.source.startswith(("https://", "http://")), figure


@pytest.mark.parametrize(
    "figure", FIGURES, ids=[f"{f.entry}.{f.field}={f.value:g}{f.unit}" for f in FIGURES]
)
def test_catalog_matches_published_figure(catalog: Catalog, figure: Published) -> None:
    entry = catalog.table(figure.table)[figure.entry]
    actual = getattr(entry, figure.field)
    assert actual is not None, f"{figure.entry}.{figure.field} is empty; source: {figure.source}"
    assert actual == pytest.approx(figure.value, rel=figure.rel), (
        f"{figure.entry}.{figure.field} = {actual}, published {figure.value} {figure.unit} "
        f"at {figure.source}"
    )


# ---- figures the vendor prints in another form: "with sparsity" headlines, GiB, mesh links

HEADLINES = [
    # (accelerator, precision, TFLOPS "with sparsity" as printed, source)
    ("a100-80gb", "bf16", 624, "https://www.nvidia.com/en-us/data-center/a100/"),
    ("h100-sxm", "bf16", 1979, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("h100-sxm", "fp8", 3958, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("h100-pcie", "fp8", 3026, "https://www.nvidia.com/en-us/data-center/h100/"),
    ("h200-sxm", "fp8", 3958, "https://lzwjava.github.io/nvidia-h200-gpu-specs-en"),
    ("h200-nvl", "fp8", 3341, "https://www.nvidia.com/en-us/data-center/h200/"),
    # DGX B200: "72 petaFLOPS FP8 training and 144 petaFLOPS FP4 inference" = 8 x 9 / 8 x 18
    ("b200", "fp8", 9000, "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-components.html"),
    ("b200", "fp4", 18000, "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-components.html"),
    # NVL72 rack "1,440 PF FP4 / 720 PF FP8" (sparse) over 72 GPUs
    ("gb200", "fp4", 20000, "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"),
    ("b300", "fp4", 144_000 / 8, "https://www.nvidia.com/en-us/data-center/hgx/"),
    ("gb300", "fp4", 1_440_000 / 72, "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    ("gb300", "fp8", 720_000 / 72, "https://www.nvidia.com/en-us/data-center/gb300-nvl72/"),
    ("mi300x", "fp8", 5229.8, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"),
    ("mi350x", "fp4", 18450, "https://www.tomshardware.com/pc-components/gpus/amds-instinct-mi355x-accelerator-will-consume-1-400-watts"),
    ("mi355x", "fp4", 20100, "https://www.tomshardware.com/pc-components/gpus/amds-instinct-mi355x-accelerator-will-consume-1-400-watts"),
    ("trainium2", "fp8", 2563, "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
]

VENDOR_GIB = [
    ("tpu-v5p", 95, "https://docs.cloud.google.com/tpu/docs/v5p-training"),
    ("tpu-v7", 192, "https://docs.cloud.google.com/tpu/docs/tpu7x?authuser=101"),
    ("trainium1", 32, "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/trainium.html"),
    ("trainium2", 96, "https://github.com/aws-neuron/aws-neuron-sdk/blob/master/about-neuron/arch/neuron-hardware/trainium2.rst"),
]

MESH_LINKS = [
    # (interconnect, GB/s per link both ways, peers, source): 7 x 128 = 896 per MI300X
    ("infinity-fabric-mi300", 128, 7, "https://www.wheelersnetwork.com/2024/01/"),
    ("infinity-fabric-mi350", 153.6, 7, "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html"),
]


@pytest.mark.parametrize("chip,precision,value,source", HEADLINES,
                         ids=[f"{c}.{p}" for c, p, _, _ in HEADLINES])
def test_sparse_headline_is_the_printed_one(catalog: Catalog, chip: str, precision: str,
                                            value: float, source: str) -> None:
    entry = catalog.accelerators[chip]
    printed = (entry.sparse_headline_tflops or {}).get(precision)
    assert printed == pytest.approx(value), f"{chip} {precision}: {printed}, printed at {source}"
    dense = getattr(entry, f"{precision}_dense_tflops")
    if entry.vendor in ("nvidia", "amd"):  # 2:4 sparsity: twice dense unless the chip says
        assert printed == pytest.approx(entry.sparsity(precision) * dense, rel=0.03)


@pytest.mark.parametrize("chip,gib,source", VENDOR_GIB, ids=[c for c, _, _ in VENDOR_GIB])
def test_vendor_gib_figure_is_memory_gb_in_gib(catalog: Catalog, chip: str, gib: float,
                                             source: str) -> None:
    entry = catalog.accelerators[chip]
    assert entry.memory_gb == gib, source  # as the vendor prints it
    assert entry.memory_unit == "GiB", source
    assert entry.memory_bytes == gib * 2**30


@pytest.mark.parametrize("link,per_peer,peers,source", MESH_LINKS,
                         ids=[name for name, _, _, _ in MESH_LINKS])
def test_mesh_link_per_peer(catalog: Catalog, link: str, per_peer: float, peers: int,
                            source: str) -> None:
    entry = catalog.interconnects[link]
    assert entry.per_peer_gb_s == per_peer and entry.peers == peers, source
    assert entry.bandwidth_gb_s == pytest.approx(per_peer * peers, rel=0.01)


@pytest.mark.parametrize("chip", ["b300", "gb300"])
def test_blackwell_ultra_breaks_the_old_fp4_rules(catalog: Catalog, chip: str) -> None:
    """Dense FP4 is 3x dense FP8 (not 2x) and FP4 "with sparsity" is 4/3 of dense (not 2x):
    both stated as the chip's own fields, not assumed.
    https://www.nvidia.com/en-us/data-center/gb300-nvl72/ (1,440 | 1,080 PF FP4, 720 PF FP8)
    """
    entry = catalog.accelerators[chip]
    assert entry.fp4_dense_tflops == pytest.approx(3 * entry.fp8_dense_tflops)
    assert entry.fp4_per_fp8 == 3
    assert entry.sparsity("fp4") == pytest.approx(4 / 3, rel=1e-3)
    assert entry.sparsity("fp8") == 2
    assert entry.fp4_dense_tflops / entry.bf16_dense_tflops == 6


@pytest.mark.parametrize(("system", "pflops_mxfp8", "hbm_tb_s", "hbm_tb"), [
    # AWS "Amazon EC2 Trn3 Architecture": Gen1 161 PF dense MXFP8, 314 TB/s, "9TB";
    # Gen2 362 PF, 706 TB/s, "20TB"
    # (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trn3-arch.html)
    ("trn3-ultraserver-64", 161, 314, 9),
    ("trn3-ultraserver-144", 362, 706, 20),
])
def test_trn3_ultraserver_totals_are_aws_printed_ones(catalog: Catalog, system: str,
                                                      pflops_mxfp8: float, hbm_tb_s: float,
                                                      hbm_tb: float) -> None:
    """The UltraServer figures AWS prints are chips × the Trainium3 figures (rounded)."""
    box = catalog.systems[system]
    chip = catalog.accelerators[box.accelerator]
    assert chip.fp8_dense_tflops is not None
    assert box.gpus * chip.fp8_dense_tflops / 1000 == pytest.approx(pflops_mxfp8, abs=0.5)
    assert box.gpus * chip.memory_bandwidth_tb_s == pytest.approx(hbm_tb_s, abs=0.5)
    assert box.total_memory_gb == box.gpus * chip.memory_gb  # GiB, as the chip figure
    assert int(box.total_memory_gb / 1024) == hbm_tb  # AWS's "TB" here: TiB, truncated
    assert box.aggregate_scale_up_gb_s == box.gpus * (chip.scale_up_gb_s or 0)


def test_mi355x_dense_peaks_are_its_cus_times_clock(catalog: Catalog) -> None:
    """MI355X dense peaks from its parts: 256 CUs (ROCm GPU specs), 8,192 FP8 FLOPs per
    CU per clock (ISSCC 2026, twice MI300X's 4,096), 2.4 GHz peak engine clock (Hot Chips
    2025): 5,033 TFLOPS FP8, BF16 half, MXFP4 twice - AMD's rounded 2.5 / 5.0 / 10.1 PF.
    https://rocm.docs.amd.com/en/7.13.0-preview/reference/gpu-specs.html
    https://www.world-today-news.com/?p=7253162"""
    chip = catalog.accelerators["mi355x"]
    fp8 = 256 * 8192 * 2.4e9 / 1e12
    assert chip.fp8_dense_tflops == pytest.approx(fp8, abs=0.5)
    assert chip.bf16_dense_tflops == pytest.approx(fp8 / 2, abs=0.5)
    assert chip.fp4_dense_tflops == pytest.approx(fp8 * 2, abs=0.5)


def test_trainium3_mx_rates_are_read_as_fp8_and_fp4(catalog: Catalog) -> None:
    """AWS gives one rate for MXFP8 and MXFP4 (2,517 TFLOPS) and 671 for BF16/FP16/TF32
    (TRAINIUM3 page): the calculator reads MX rates under fp8 and fp4, int8 and int4 alike,
    and the FP8/BF16 jump of 3.75 is stated, not taken for a sparse figure."""
    chip = catalog.accelerators["trainium3"]
    assert [chip.dense_tflops(d) for d in ("bf16", "fp16", "fp8", "int8", "fp4", "int4")] == [
        671, 671, 2517, 2517, 2517, 2517]
    assert chip.fp8_per_bf16 == pytest.approx(2517 / 671, rel=1e-3)
    assert chip.sparsity("bf16") == pytest.approx(2517 / 671, rel=1e-3)  # not 2:4
