#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# virtio-nic-drops.sh [SIZE]: B's NIC drops on the virtio-net wire, as
# BATCHING_PEER_NIC_DROPS prints them (guest/init.sh's TESTBED_VIRTIO):
# always 0. QEMU's virtio-net drops no frame for want of receive
# buffers: it holds it back until the guest posts some, and its socket
# backend stops reading meanwhile. A zero that is known, unlike no count
# at all, lets the loss checks run, excusing nothing.
echo 0
