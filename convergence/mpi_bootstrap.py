"""Start torch.distributed under mpirun with MPI as the only rendezvous.

Contract: every process launched by `mpirun` (OpenMPI) calls `init_distributed()`. Rank, world
size and local rank come from OpenMPI's environment (OMPI_COMM_WORLD_*); nobody sets MASTER_ADDR.
Rank 0 opens a torch TCPStore on a free port of its own host and broadcasts (port, candidate
addresses) with one MPI_Bcast; the other ranks connect to the first address that answers. After
that MPI is idle and all traffic goes through torch.distributed (NCCL on GPUs, gloo on CPU): MPI
only starts things up, as llm.c's zero.cuh does.

MPI is reached through mpi4py when it is installed, else through OpenMPI's C library via ctypes
(MPI_Init / MPI_Bcast / MPI_Finalize only), so a machine with OpenMPI but no mpi4py still works.
FUSEDNORM_MPI_BOOTSTRAP=mpi4py|ctypes forces one (the tests use it to cover both).
FUSEDNORM_RDZV_ADDR=host forces the address the other ranks use to reach rank 0.
Without an MPI launcher (plain `python3 train.py`) the world is one process and MPI is not touched.
"""

import atexit
import ctypes
import ctypes.util
import fcntl
import json
import os
import socket
import struct
import sys
import time
from dataclasses import dataclass
from datetime import timedelta

# One fixed-size broadcast keeps the ctypes path to a single MPI call; the payload is a short JSON.
_BCAST_BYTES = 4096


@dataclass
class World:
    rank: int
    size: int
    local_rank: int
    local_size: int
    launcher: str  # "openmpi" or "single"
    mpi: str = "none"  # how MPI was reached for the bootstrap: "mpi4py", "ctypes" or "none"
    rdzv: tuple = ()  # (addresses offered by rank 0, port, address this rank used)


def world_from_env(env=os.environ) -> World:
    """Rank layout from OpenMPI's variables; a plain single process if they are absent."""
    if "OMPI_COMM_WORLD_SIZE" in env:
        try:
            return World(int(env["OMPI_COMM_WORLD_RANK"]), int(env["OMPI_COMM_WORLD_SIZE"]),
                         int(env["OMPI_COMM_WORLD_LOCAL_RANK"]), int(env["OMPI_COMM_WORLD_LOCAL_SIZE"]),
                         "openmpi")
        except (KeyError, ValueError) as e:
            raise RuntimeError(f"incomplete OpenMPI environment (OMPI_COMM_WORLD_*): {e}") from e
    if "PMI_RANK" in env or "PMIX_RANK" in env:
        raise RuntimeError("launched by an MPI other than OpenMPI (PMI_RANK/PMIX_RANK set, "
                           "OMPI_COMM_WORLD_* missing): launch with OpenMPI's mpirun")
    return World(0, 1, 0, 1, "single")


class _Mpi4pyComm:
    name = "mpi4py"

    def __init__(self):
        from mpi4py import MPI  # noqa: initialises MPI; finalised by mpi4py at exit
        self._comm = MPI.COMM_WORLD

    def bcast_bytes(self, data: bytes, root: int) -> bytes:
        return self._comm.bcast(data, root=root)

    def barrier(self):
        self._comm.Barrier()


class _CtypesOpenMpiComm:
    """The three MPI calls we need, through OpenMPI's libmpi (its handles are global symbols)."""

    name = "ctypes"

    def __init__(self):
        name = ctypes.util.find_library("mpi") or "libmpi.so.40"
        try:
            self._lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
            # OpenMPI's ABI: MPI_COMM_WORLD is &ompi_mpi_comm_world, MPI_BYTE is &ompi_mpi_byte.
            self._comm_world = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(self._lib, "ompi_mpi_comm_world")))
            self._byte = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(self._lib, "ompi_mpi_byte")))
        except (OSError, ValueError) as e:
            raise RuntimeError(f"cannot use OpenMPI's libmpi ({name}) without mpi4py: {e}; "
                               "install mpi4py (pip install mpi4py)") from e
        flag = ctypes.c_int(0)
        self._lib.MPI_Initialized(ctypes.byref(flag))
        if not flag.value:
            rc = self._lib.MPI_Init(None, None)
            if rc != 0:
                raise RuntimeError(f"MPI_Init failed with code {rc}")
            atexit.register(self._finalize)

    def _finalize(self):
        flag = ctypes.c_int(0)
        self._lib.MPI_Finalized(ctypes.byref(flag))
        if not flag.value:
            self._lib.MPI_Finalize()

    def barrier(self):
        rc = self._lib.MPI_Barrier(self._comm_world)
        if rc != 0:
            raise RuntimeError(f"MPI_Barrier failed with code {rc}")

    def bcast_bytes(self, data: bytes, root: int) -> bytes:
        if len(data) > _BCAST_BYTES - 4:
            raise RuntimeError("bootstrap payload too large")
        buf = ctypes.create_string_buffer(struct.pack("<I", len(data)) + data, _BCAST_BYTES)
        rc = self._lib.MPI_Bcast(buf, ctypes.c_int(_BCAST_BYTES), self._byte, ctypes.c_int(root), self._comm_world)
        if rc != 0:
            raise RuntimeError(f"MPI_Bcast failed with code {rc}")
        (n,) = struct.unpack("<I", buf.raw[:4])
        return buf.raw[4:4 + n]


_COMM = None  # the MPI binding used for the bootstrap, kept for finalize()


def finalize():
    """MPI_Finalize, if our bootstrap initialised MPI (before os._exit, which skips atexit)."""
    if isinstance(_COMM, _Mpi4pyComm):
        from mpi4py import MPI
        if not MPI.Is_finalized():
            MPI.Finalize()
    elif isinstance(_COMM, _CtypesOpenMpiComm):
        _COMM._finalize()


def exit_barrier():
    """Before an exit that every rank takes for the same reason (bad arguments, a check agreed by
    all ranks): wait until every rank has printed its reason. mpirun ends the whole job as soon as
    the first rank exits non-zero, which would otherwise cut the slower ranks' messages."""
    if world_from_env().size <= 1:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        mpi_comm().barrier()
    except Exception:  # noqa: BLE001 - the exit goes ahead; only a message may be lost
        pass


def abort(code):
    """Ends every rank of the job now (MPI_Abort) when MPI was started; else this process. For an
    error on one rank that the others cannot learn about: they may be waiting in a collective."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if isinstance(_COMM, _Mpi4pyComm):
            from mpi4py import MPI
            MPI.COMM_WORLD.Abort(code)
        elif isinstance(_COMM, _CtypesOpenMpiComm):
            _COMM._lib.MPI_Abort(_COMM._comm_world, ctypes.c_int(code))
    finally:
        os._exit(code)


def mpi_comm():
    global _COMM
    if _COMM is None:
        _COMM = _new_mpi_comm()
    return _COMM


def _new_mpi_comm():
    choice = os.environ.get("FUSEDNORM_MPI_BOOTSTRAP", "auto")
    if choice not in ("auto", "mpi4py", "ctypes"):
        raise RuntimeError(f"FUSEDNORM_MPI_BOOTSTRAP={choice!r}: expected auto, mpi4py or ctypes")
    if choice in ("auto", "mpi4py"):
        try:
            return _Mpi4pyComm()
        except ImportError:
            if choice == "mpi4py":
                raise RuntimeError("FUSEDNORM_MPI_BOOTSTRAP=mpi4py but mpi4py is not installed")
    return _CtypesOpenMpiComm()


def _interface_addresses():
    """IPv4 addresses of this host's interfaces (loopback last): where rank 0 may be reachable."""
    addrs = []
    try:
        names = [n for _, n in socket.if_nameindex()]
    except OSError:
        names = []
    for name in names:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            # SIOCGIFADDR (0x8915): the interface's IPv4 address; fails for interfaces without one.
            raw = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))
            addrs.append(socket.inet_ntoa(raw[20:24]))
        except OSError:
            pass
        finally:
            s.close()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addrs.append(info[4][0])
    except OSError:
        pass
    unique = list(dict.fromkeys(addrs))
    return [a for a in unique if not a.startswith("127.")] + [a for a in unique if a.startswith("127.")]


def _first_reachable(addrs, port, deadline_s=30.0):
    end = time.monotonic() + deadline_s
    while True:
        for a in addrs:
            try:
                with socket.create_connection((a, port), timeout=2.0):
                    return a
            except OSError:
                continue
        if time.monotonic() > end:
            raise RuntimeError(f"no address of rank 0 answered on port {port}: tried {addrs}; "
                               "set FUSEDNORM_RDZV_ADDR to rank 0's reachable address")
        time.sleep(0.5)


def init_distributed(backend: str, timeout_s: float = 600.0) -> World:
    """Bootstrap through MPI, then init_process_group(backend). Returns the rank layout."""
    import torch.distributed as dist

    world = world_from_env()
    timeout = timedelta(seconds=timeout_s)
    if world.size == 1:
        store = dist.HashStore()
        dist.init_process_group(backend, store=store, rank=0, world_size=1, timeout=timeout)
        return world

    comm = mpi_comm()
    store = None
    if world.rank == 0:
        # Port 0: the OS picks a free port, so concurrent jobs on one host never collide.
        store = dist.TCPStore("0.0.0.0", 0, world.size, True, timeout, wait_for_workers=False)
        override = os.environ.get("FUSEDNORM_RDZV_ADDR")
        # All ranks on one host (local size == world size): loopback is enough and always works.
        # FUSEDNORM_RDZV_ALL_INTERFACES=1 takes the multi-node path anyway (the CI test uses it).
        if override:
            addrs = [override]
        elif world.local_size == world.size and os.environ.get("FUSEDNORM_RDZV_ALL_INTERFACES") != "1":
            addrs = ["127.0.0.1"]
        else:
            addrs = _interface_addresses()
        payload = json.dumps({"port": store.port, "addrs": addrs, "host": socket.gethostname()}).encode()
    else:
        payload = b""
    info = json.loads(comm.bcast_bytes(payload, 0).decode())
    addr = info["addrs"][0]
    if world.rank != 0:
        addr = _first_reachable(info["addrs"], info["port"])
        store = dist.TCPStore(addr, info["port"], world.size, False, timeout)
    world.mpi, world.rdzv = comm.name, (info["addrs"], info["port"], addr)
    dist.init_process_group(backend, store=store, rank=world.rank, world_size=world.size, timeout=timeout)
    return world


if __name__ == "__main__":
    # Smoke test: mpirun -np 2 python3 convergence/mpi_bootstrap.py
    import torch
    import torch.distributed as dist
    w = init_distributed("gloo")
    t = torch.tensor([float(w.rank + 1)])
    dist.all_reduce(t)
    expect = w.size * (w.size + 1) / 2
    print(f"rank {w.rank}/{w.size} local {w.local_rank}: all_reduce {t.item()} (expect {expect})", flush=True)
    dist.destroy_process_group()
    sys.exit(0 if t.item() == expect else 1)
