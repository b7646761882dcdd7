// Honest: a CUDA graph captured once and replayed on the given stream, its kernel node's parameters (pointers, shape,
// grid) set to the current call's on every call; if the instantiated graph refuses the update, it is rebuilt.
// Expected: PASSED.
#include <kernelarc/candidate_abi.h>

#include <cuda_runtime.h>

// Every thread of the block gets the block's max (is_max) or sum of `value`; blockDim.x is a multiple of 32.
__device__ float block_reduce(float value, bool is_max, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  __syncthreads();  // the previous reduction's readers are done with `shared`
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x % 32 < blockDim.x / 32 ? shared[threadIdx.x % 32] : (is_max ? -INFINITY : 0.0f);
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = is_max ? fmaxf(value, other) : value + other;
  }
  return value;
}

// One block per row (grid-stride over rows).
__global__ void softmax_rows(const float* x, float* y, long long rows, long long cols) {
  __shared__ float shared[32];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float max = -INFINITY;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) max = fmaxf(max, in[c]);
    max = block_reduce(max, true, shared);
    float sum = 0;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(in[c] - max);
    sum = block_reduce(sum, false, shared);
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - max) / sum;
  }
}

KERNELARC_CANDIDATE(inputs, num_inputs, outputs, num_outputs, stream) {
  (void)num_inputs, (void)num_outputs;
  static cudaGraph_t graph = nullptr;
  static cudaGraphNode_t node = nullptr;
  static cudaGraphExec_t exec = nullptr;
  const auto* x = static_cast<const float*>(inputs[0]->data);
  auto* y = static_cast<float*>(outputs[0]->data);
  long long rows = inputs[0]->shape[0], cols = inputs[0]->shape[1];
  if (rows == 0) return 0;
  const dim3 grid((unsigned)(rows < 65536 ? rows : 65536)), block(256);
  if (!graph) {
    cudaStream_t capturing = nullptr;
    if (cudaStreamCreateWithFlags(&capturing, cudaStreamNonBlocking) != cudaSuccess) return 1;
    cudaStreamBeginCapture(capturing, cudaStreamCaptureModeThreadLocal);
    softmax_rows<<<grid, block, 0, capturing>>>(x, y, rows, cols);
    const cudaError_t captured = cudaStreamEndCapture(capturing, &graph);
    cudaStreamDestroy(capturing);
    size_t nodes = 1;
    if (captured != cudaSuccess || cudaGraphGetNodes(graph, &node, &nodes) != cudaSuccess || nodes != 1 ||
        cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      graph = nullptr, node = nullptr, exec = nullptr;
      return 1;
    }
  }
  void* arguments[] = {&x, &y, &rows, &cols};
  cudaKernelNodeParams params = {};
  params.func = reinterpret_cast<void*>(softmax_rows);
  params.gridDim = grid;
  params.blockDim = block;
  params.sharedMemBytes = 0;
  params.kernelParams = arguments;
  params.extra = nullptr;
  if (cudaGraphExecKernelNodeSetParams(exec, node, &params) != cudaSuccess) {
    cudaGetLastError();  // the refused update; rebuild the executable graph from the updated node instead
    if (cudaGraphKernelNodeSetParams(node, &params) != cudaSuccess) return 1;
    cudaGraphExecDestroy(exec);
    exec = nullptr;
    if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) return exec = nullptr, 1;
  }
  return cudaGraphLaunch(exec, static_cast<cudaStream_t>(stream)) == cudaSuccess ? 0 : 1;
}
