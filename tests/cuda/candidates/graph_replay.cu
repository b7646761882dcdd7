// Canary (timing): captures its softmax launch into a CUDA graph on the first call, with that call's pointers and
// shape, and from then on only replays the graph on the given stream, never updating it: it keeps reading the first
// call's input address and writing the first shape's output. Other slots and other shapes get wrong answers: rejected.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

__global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {
  const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float* out = y + r * cols;
  float max = in[0];
  for (long long c = 1; c < cols; ++c) max = fmaxf(max, in[c]);
  float sum = 0;
  for (long long c = 0; c < cols; ++c) sum += expf(in[c] - max);
  for (long long c = 0; c < cols; ++c) out[c] = expf(in[c] - max) / sum;
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static cudaGraphExec_t replay = nullptr;
  const long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (!replay) {
    cudaStream_t capturing = nullptr;
    if (cudaStreamCreateWithFlags(&capturing, cudaStreamNonBlocking) != cudaSuccess) return 1;
    cudaGraph_t graph = nullptr;
    cudaStreamBeginCapture(capturing, cudaStreamCaptureModeThreadLocal);
    softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, capturing>>>(static_cast<const float*>(inputs[0]->data),
                                                                       static_cast<float*>(outputs[0]->data), rows, cols);
    const cudaError_t captured = cudaStreamEndCapture(capturing, &graph);
    cudaStreamDestroy(capturing);
    if (captured != cudaSuccess || cudaGraphInstantiate(&replay, graph, 0) != cudaSuccess) return replay = nullptr, 1;
    cudaGraphDestroy(graph);
  }
  return cudaGraphLaunch(replay, static_cast<cudaStream_t>(stream)) == cudaSuccess ? 0 : 1;
}
