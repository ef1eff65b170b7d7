// Lab 09's relaunch peer: one launch per step of the same workload, three ways: the host waits
// for each launch, the launches are queued back to back, and all of them as one CUDA graph.
// Prints the median per step of each over `trials` runs.
// Usage: relaunch GROUPS [WG=64] [STEPS=1000] [TRIALS=20] [N=4096]
#include "common.cuh"

__global__ void one_step(const unsigned *src, unsigned *dst, unsigned n, unsigned s) {
    do_step(src, dst, n, s, blockIdx.x, gridDim.x);
}

enum How { kWait, kQueue, kGraph };

// One run of all the steps; returns the host's ms from the first launch to the end.
static double run(How how, unsigned groups, unsigned wg, unsigned steps, unsigned n, unsigned *a,
                  unsigned *b, cudaStream_t st, cudaGraphExec_t graph) {
    const double start = now_ms();
    if (how == kGraph) {
        CHECK_CUDA(cudaGraphLaunch(graph, st));
    } else {
        for (unsigned s = 0; s < steps; ++s) {
            one_step<<<groups, wg, 0, st>>>(s % 2 ? b : a, s % 2 ? a : b, n, s);
            if (how == kWait) CHECK_CUDA(cudaStreamSynchronize(st));
        }
    }
    CHECK_CUDA(cudaStreamSynchronize(st));
    return now_ms() - start;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: relaunch GROUPS [WG=64] [STEPS=1000] [TRIALS=20] [N=4096]\n");
        return 2;
    }
    const unsigned groups = arg_or(argc, argv, 1, 0, "GROUPS"), wg = arg_or(argc, argv, 2, 64, "WG");
    const unsigned steps = arg_or(argc, argv, 3, 1000, "STEPS");
    const unsigned trials = arg_or(argc, argv, 4, 20, "TRIALS"), n = arg_or(argc, argv, 5, 4096, "N");
    const std::vector<unsigned> x = steps_input(n), want = steps_reference(x, steps);
    unsigned *a, *b;
    CHECK_CUDA(cudaMalloc(&a, n * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&b, n * sizeof(unsigned)));
    cudaStream_t st;
    CHECK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaGraph_t g;
    cudaGraphExec_t graph;
    CHECK_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    for (unsigned s = 0; s < steps; ++s) one_step<<<groups, wg, 0, st>>>(s % 2 ? b : a, s % 2 ? a : b, n, s);
    CHECK_CUDA(cudaStreamEndCapture(st, &g));
    CHECK_CUDA(cudaGraphInstantiate(&graph, g, 0));
    const char *names[] = {"relaunch_wait", "relaunch_queue", "relaunch_graph"};
    int rc = 0;
    for (How how : {kWait, kQueue, kGraph}) {
        std::vector<double> ms;
        bool ok = true;
        for (unsigned t = 0; t <= trials; ++t) {  // the first is a warm-up
            CHECK_CUDA(cudaMemcpy(a, x.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
            const double m = run(how, groups, wg, steps, n, a, b, st, graph);
            if (t) ms.push_back(m);
            std::vector<unsigned> got(n);
            CHECK_CUDA(cudaMemcpy(got.data(), steps % 2 ? b : a, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
            ok = ok && got == want;
        }
        const double m = median(ms);
        std::printf("peer %s groups %u wg %u steps %u trials %u ms %.4f us_per_step %.3f %s\n",
                    names[how], groups, wg, steps, trials, m, m * 1000 / steps, ok ? "verified" : "WRONG");
        if (!ok) rc = 1;
    }
    return rc;
}
