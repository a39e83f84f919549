// kiln::data: LibTorch's torch::data, loading training data in batches.
//
//   auto dataset = kiln::data::datasets::MNIST("data/mnist")
//                      .map(kiln::data::transforms::Normalize<>(0.1307, 0.3081))
//                      .map(kiln::data::transforms::Stack<>());
//   auto loader = kiln::data::make_data_loader(std::move(dataset),
//                     kiln::data::DataLoaderOptions(64).workers(2));
//   for (auto& batch : *loader) { ... batch.data, batch.target ... }
//
// Datasets give examples, transforms map or collate them, a sampler picks
// each batch's indices, and the loader ties them together, optionally
// building batches ahead on worker threads.
#pragma once

#include <kiln/data/dataloader.h>
#include <kiln/data/dataloader_options.h>
#include <kiln/data/datasets/base.h>
#include <kiln/data/datasets/map.h>
#include <kiln/data/datasets/mnist.h>
#include <kiln/data/datasets/tensor.h>
#include <kiln/data/example.h>
#include <kiln/data/iterator.h>
#include <kiln/data/samplers/base.h>
#include <kiln/data/samplers/distributed.h>
#include <kiln/data/samplers/random.h>
#include <kiln/data/samplers/sequential.h>
#include <kiln/data/transforms/base.h>
#include <kiln/data/transforms/collate.h>
#include <kiln/data/transforms/lambda.h>
#include <kiln/data/transforms/stack.h>
#include <kiln/data/transforms/tensor.h>
