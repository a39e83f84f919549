// What every bench program with LibTorch beside kiln does first: LibTorch
// takes the rows' thread counts too, and the report names both sides.
#pragma once

#include <string>

#include <benchmark/benchmark.h>

#include <kiln/kiln.h>

#include "workload.h"
#include "peers/torch_peer.h"

inline void use_torch_peer() {
  g_peer_threads = torch_peer::set_threads;
  benchmark::AddCustomContext("torch", torch_peer::describe());
  benchmark::AddCustomContext("kiln_default_threads", std::to_string(kiln::get_num_threads()));
}
