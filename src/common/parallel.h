// Splits work over the machine's cores in fixed chunks, so results never depend on how many cores ran it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace kernelarc::common {

// Calls body(begin, end, chunk_index) for every chunk [begin, end) of [0, count), `chunk` items each (the last
// may be shorter), on up to hardware_concurrency() threads; inline when there is a single chunk. The first
// exception thrown by a chunk is rethrown after every thread has stopped.
void for_each_chunk(std::int64_t count, std::int64_t chunk,
                    const std::function<void(std::int64_t begin, std::int64_t end, std::int64_t chunk_index)>& body);

// memcpy over the machine's cores: the judge stages gigabytes of inputs and outputs per candidate.
void copy_bytes(void* to, const void* from, std::size_t bytes);

// memset over the machine's cores: the judge poisons gigabytes of outputs per candidate.
void fill_bytes(void* to, unsigned char value, std::size_t bytes);

// memcmp(a, b, bytes) == 0 over the machine's cores: the judge checks gigabytes of inputs per candidate.
bool equal_bytes(const void* a, const void* b, std::size_t bytes);

}  // namespace kernelarc::common
