"""The cluster's own view: its profile (release, served API versions, feature gates) and, opt-in, a live
cache of DeviceClasses, ResourceSlices and DeviceTaintRules read by admission warnings."""
