//===- IR.h - shardc's typed program representation -------------*- C++ -*-===//
//
// The umbrella header: types (Types.h), values, ops and blocks
// (Operation.h), the op kinds (Ops.h), and modules with their builder,
// printer and verifier (Module.h). docs/ir.md describes the textual form
// and docs/architecture.md where the IR sits among the libraries.
//
//===----------------------------------------------------------------------===//
#ifndef SHARDC_IR_IR_H
#define SHARDC_IR_IR_H

#include "ir/Module.h"
#include "ir/Operation.h"
#include "ir/Ops.h"
#include "ir/Types.h"

#endif // SHARDC_IR_IR_H
