public enum ProfilesPlaceholder {}
