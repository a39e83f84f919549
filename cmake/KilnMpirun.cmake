# How the MPI tests (and `make train-ddp`, which reads the same list from the
# Makefile) start Open MPI on one machine: more ranks than cores
# (--oversubscribe), no pinning of a rank to one core (--bind-to none: kiln's
# kernel threads would share it), as root in a container (--allow-run-as-root),
# and shared memory without the cross-memory-attach copy containers forbid.
set(KILN_MPIRUN_FLAGS --oversubscribe --bind-to none --allow-run-as-root --mca btl_vader_single_copy_mechanism none
    CACHE STRING "Flags of every mpirun that runs kiln's MPI tests")
