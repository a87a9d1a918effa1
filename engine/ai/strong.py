"""placeholder"""
from engine.ai.basic import BasicPlayer as StrongPlayer
