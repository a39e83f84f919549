# How the MPI tests (ctest -L distributed, `make test-distributed`) start Open
# MPI on one machine (README.md shows the same flags): more ranks than cores
# (--oversubscribe), no pinning of a rank to one core (--bind-to none: kiln's
# kernel threads would share it), as root in a container (--allow-run-as-root),
# and shared memory without the cross-memory-attach copy containers forbid.
set(KILN_MPIRUN_FLAGS --oversubscribe --bind-to none --allow-run-as-root --mca btl_vader_single_copy_mechanism none
    CACHE STRING "Flags of every mpirun that runs kiln's MPI tests")
