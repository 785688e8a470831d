import Foundation

let usageText = """
usage:
  gallery [serve] --root DIR [--socket PATH | --listen 127.0.0.1:PORT] [--threads N] [--cache-dir DIR]
                  [--templates DIR] [--public DIR] [--title TEXT] [--log FILE] [--rescan SECONDS]
                  [--page-wait SECONDS] [--index PATH | off] [--sort date|name]
                  [--origin-connect-timeout S] [--origin-timeout S] [--origin-max-bytes N]
                  [--remote-revalidate-after S | never]
                  [--disk-cache-bytes N] [--render-cache-bytes N] [--decode-max-bytes N]
                  [--decode-budget-bytes N] [--decode-budget-wait S]
                  [--jpeg-quality Q] [--webp-quality Q | auto] [--max-renders N]
                  [--formats jpeg,webp | jpeg] [--colour srgb | wide] [--max-downloads N] [--share-key FILE]
                  [--originals-redirect /_library/]   (originals sent by nginx: X-Accel-Redirect)
                  [--map-tiles URL-TEMPLATE] [--map-attribution TEXT]   (the map, where gallery.json has show_location)
  gallery decode IN OUT [--scale M/8] [--orient]     write .ppm, .pgm, .pam or .png
  gallery probe IN                                    one JSON line
  gallery thumb IN OUT (--size 480 | --cover 240x240) [--quality 82]
  gallery index --root DIR [--cache-dir DIR] [--index PATH] [--accept-removals]
                                                      build or refresh the library index
  gallery warm --url http://127.0.0.1:8080/ [--concurrency N] [--verify] [--timeout S]
                                                      visit every page, load every linked image
                                                      (fills nginx's image cache)
  gallery warm --root DIR --sizes 280x210,800 --out DIR [--quality Q] [--concurrency N]
                                                      render every photo into files, one decode each
  gallery share ALBUM --root DIR [--cache-dir DIR] [--share-key FILE]
                                                      print the share link path (/s/<token>/) of
                                                      an album (folder path or id)
  gallery share --rotate [--grace 7d] [--cache-dir DIR] [--share-key FILE]
                                                      new key; old links open for the grace period
  gallery share --revoke-all [--cache-dir DIR] [--share-key FILE]
                                                      new key; every old link stops opening now
"""

/// Writes one line to standard error (stderr as a C global is not concurrency-safe in Swift 6).
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
