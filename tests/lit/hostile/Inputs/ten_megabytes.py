# Prints a valid .shard program of just over 10 MiB to stdout: a small mesh,
# then 69,516 commented statements that reshard one tensor (an elementwise op
# whose result is sliced over Y), each with its own name.
import sys

out = sys.stdout
out.write("chip C { hbm = 80 GB; hbm_bw = 3.35 TB/s; flops.bf16 = 989 TFLOP/s; }\n"
          "cluster K { chip = C; level node { size = 8; uplink_bw = 450 GB/s; } }\n"
          "mesh M = K[X: 2, Y: 4];\n"
          "dim batch = 1024, d_model = 512;\n"
          "tensor input_activations : bf16[batch_X, d_model];\n")
written, i = 0, 0
while written < 10 * 2**20:
    text = ("// layer %d: a residual block, resharded over Y and back\n"
            "hidden_activations_%06d[batch_X, d_model_Y] = "
            "relu(input_activations[batch_X, d_model]);\n" % (i, i))
    out.write(text)
    written += len(text)
    i += 1
