// kiln::nn: modules, layers, losses and initializers (LibTorch's torch::nn).
#pragma once

#include <kiln/nn/activation.h>
#include <kiln/nn/batchnorm.h>
#include <kiln/nn/containers/any.h>
#include <kiln/nn/containers/functional.h>
#include <kiln/nn/containers/module_dict.h>
#include <kiln/nn/containers/module_list.h>
#include <kiln/nn/containers/sequential.h>
#include <kiln/nn/conv.h>
#include <kiln/nn/conv_transpose.h>
#include <kiln/nn/dropout.h>
#include <kiln/nn/embedding.h>
#include <kiln/nn/flatten.h>
#include <kiln/nn/fold.h>
#include <kiln/nn/init.h>
#include <kiln/nn/linear.h>
#include <kiln/nn/loss.h>
#include <kiln/nn/module.h>
#include <kiln/nn/normalization.h>
#include <kiln/nn/options.h>
#include <kiln/nn/pooling.h>
#include <kiln/nn/utils/clip_grad.h>
