import Foundation

/// Human-readable byte counts: "812 KB", "4.2 MB".
func formatBytes(_ n: Int) -> String {
    if n < 1000 { return "\(n) bytes" }
    if n < 1_000_000 { return "\((n + 500) / 1000) KB" }
    return String(format: "%.1f MB", Double(n) / 1_000_000)
}
