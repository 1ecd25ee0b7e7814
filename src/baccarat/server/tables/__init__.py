"""Live tables: each table's task, its ledger, seating, the lobby and this node's leases."""
