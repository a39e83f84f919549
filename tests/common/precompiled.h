// The headers nearly every test includes, precompiled once per build and
// reused by every suite (tests/CMakeLists.txt). Only headers that are stable
// and cheap to have everywhere belong here: a change to any of them rebuilds
// every test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kiln/kiln.h>
