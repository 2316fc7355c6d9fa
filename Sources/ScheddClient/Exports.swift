// ScheddClient's names and errors live in its Foundation-free base (ScheddClientCore, which the CLI
// links without Foundation); apps see them by importing ScheddClient alone.
@_exported import ScheddClientCore
