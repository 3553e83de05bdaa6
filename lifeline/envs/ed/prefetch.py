# mypy: disable-error-code="no-untyped-def"
"""A software prefetch for the batch kernel (``kernel_v3.step_all``).

The batch step visits env 0, 1, ..., N-1 in turn, and each env's rows (its counters, mask,
observation, beds, patient rows) sit in some twenty separate arrays: at N = 4,096 none of them is
still in the core's cache when its env comes round again, and the step waits on each of them in
turn. Asking for env ``e + D``'s rows while env ``e`` is stepped (``llvm.prefetch``, a hint that
changes no value) overlaps those waits with work.

:func:`prefetch` ``(arr, i, j)`` hints the cache line holding ``arr[i, j]`` (``arr[i, j, 0]`` for a
3-D array). Numba exposes no prefetch, so this is a numba ``intrinsic`` (its public extension
API) emitting LLVM's; without numba it is a no-op (the plain Python kernel gains nothing from it).
"""

from __future__ import annotations

from typing import Any

prefetch: Any
"""``prefetch(arr, i, j)``: the intrinsic below, or a no-op without numba."""

try:
    import os

    if os.environ.get("LIFELINE_NO_NUMBA"):
        raise ImportError("LIFELINE_NO_NUMBA is set")
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def _prefetch(typingctx: Any, arr: Any, i: Any, j: Any) -> Any:
        """Hint the line of ``arr[i, j]`` (first column of ``arr[i, j]`` if 3-D) into cache."""
        if not isinstance(arr, types.Array) or arr.ndim not in (2, 3):
            return None
        sig = types.void(arr, i, j)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            index = [context.cast(builder, args[k], signature.args[k], types.intp)
                     for k in (1, 2)]
            if aryty.ndim == 3:
                index.append(context.get_constant(types.intp, 0))
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, index,
                                           wraparound=False)
            byte_ptr = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            # read (0), keep in all cache levels (3), data cache (1)
            builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, 0),
                              ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen

    prefetch = _prefetch

except ImportError:  # pragma: no cover - depends on the installation

    def _no_prefetch(arr: Any, i: Any, j: Any) -> None:
        """No-op without numba."""

    prefetch = _no_prefetch
