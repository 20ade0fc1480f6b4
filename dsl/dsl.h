// The tilejit DSL, all of it.
#pragma once

#include "dsl/async.h"
#include "dsl/builder.h"
#include "dsl/clock.h"
#include "dsl/cluster.h"
#include "dsl/diagnostic.h"
#include "dsl/fragment.h"
#include "dsl/launch_control.h"
#include "dsl/tensor_memory.h"
#include "dsl/math.h"
#include "dsl/packed.h"
#include "dsl/pipeline.h"
#include "dsl/split_k.h"
#include "dsl/tile.h"
#include "dsl/values.h"
#include "dsl/warp.h"
