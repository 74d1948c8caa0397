import Foundation
import SearchIndex

print("search-bench: not yet")
