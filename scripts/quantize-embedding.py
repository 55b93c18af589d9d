"""Int8 dynamic quantisation of one sentence-embedding model (called by scripts/install-models.sh).

    python scripts/quantize-embedding.py <model.onnx> <model.int8.onnx>

Dynamic quantisation stores the MatMul weights as int8 (per channel) and quantises activations
at run time, so it needs no calibration data. Only MatMul is quantised: the embedding tables
(Gather) and attention stay fp32, which is where quantisation costs quality for little speed.
The result is written beside the fp32 model and never replaces it (CAIRN_EMBEDDING_PRECISION
chooses which one the service loads; docs/embeddings.md).
"""

import os
import sys
import tempfile

from onnxruntime.quantization import QuantType, quantize_dynamic


def main() -> None:
    src, dest = sys.argv[1], sys.argv[2]
    # Written next to the destination, then renamed: a killed run never leaves half a model.
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dest) or ".", suffix=".onnx")
    os.close(fd)
    try:
        quantize_dynamic(
            src,
            tmp,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
        )
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


if __name__ == "__main__":
    main()
