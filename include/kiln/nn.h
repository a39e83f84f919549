// kiln::nn: modules, layers, losses and initializers (LibTorch's torch::nn).
#pragma once

#include <kiln/nn/conv.h>
#include <kiln/nn/init.h>
#include <kiln/nn/linear.h>
#include <kiln/nn/loss.h>
#include <kiln/nn/module.h>
#include <kiln/nn/options.h>
#include <kiln/nn/pooling.h>
#include <kiln/nn/utils/clip_grad.h>
