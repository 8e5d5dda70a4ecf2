"""NVIDIA GPU models and MIG profiles to Nodes, ResourceSlices and DeviceClasses, as the NVIDIA driver publishes them."""
