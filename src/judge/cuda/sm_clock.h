// The SM clock right now, from NVML (loaded at run time): the clock under load, which the driver's
// CU_DEVICE_ATTRIBUTE_CLOCK_RATE (the maximum) does not give.
#pragma once

#include <optional>
#include <string>

namespace kernelarc::judge::cuda {

// `pci_bus_id` as cuDeviceGetPCIBusId writes it ("0000:65:00.0"). nullopt when NVML is missing or fails.
std::optional<unsigned> sm_clock_mhz(const std::string& pci_bus_id);

// The same for CUDA device `ordinal` (its bus id asked of the driver once); nullopt without a driver or NVML.
std::optional<unsigned> sm_clock_mhz_of_device(int ordinal);

}  // namespace kernelarc::judge::cuda
