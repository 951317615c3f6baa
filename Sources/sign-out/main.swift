import Shared
print("todo")
