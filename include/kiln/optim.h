// kiln::optim: optimizers (LibTorch's torch::optim).
#pragma once

#include <kiln/optim/adagrad.h>
#include <kiln/optim/adam.h>
#include <kiln/optim/optimizer.h>
#include <kiln/optim/rmsprop.h>
#include <kiln/optim/schedulers/cosine_annealing_lr.h>
#include <kiln/optim/schedulers/exponential_lr.h>
#include <kiln/optim/schedulers/lr_scheduler.h>
#include <kiln/optim/schedulers/step_lr.h>
#include <kiln/optim/sgd.h>
