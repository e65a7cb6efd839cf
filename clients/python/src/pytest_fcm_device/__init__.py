"""pytest fixtures for fcm-device: an emulated FCM phone for the whole suite (the one
`fcm-device exec` runs it under, or one started for it), reset before each test, and
waits and expectations that say what happened instead when they fail."""
from .client import ControlError, Emulator, FCM, duration_seconds
from .emulator import StartError

__all__ = ["ControlError", "Emulator", "FCM", "StartError", "duration_seconds"]
