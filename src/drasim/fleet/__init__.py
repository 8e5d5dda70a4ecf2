"""NVIDIA GPU models and MIG profiles to Nodes, ResourceSlices and DeviceClasses as the driver publishes them."""
