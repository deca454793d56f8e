
//
// Tokens.swift
//

// Do not edit directly, this file was auto-generated.


import UIKit

public class DesignTokens {
    public static let borderFocusColor = UIColor(red: 0.145, green: 0.388, blue: 0.922, alpha: 1)
    public static let borderFocusStyle = "solid"
    public static let borderFocusWidth = CGFloat(2)
    public static let colorAction = UIColor(red: 0.145, green: 0.388, blue: 0.922, alpha: 1)
    public static let colorBrandPrimary = UIColor(red: 0.145, green: 0.388, blue: 0.922, alpha: 1) /** Buttons, links, focus rings */
    public static let colorBrandSecondary = UIColor(red: 0.486, green: 0.227, blue: 0.929, alpha: 1)
    public static let colorSurfaceBackground = UIColor(red: 1, green: 1, blue: 1, alpha: 1)
    public static let colorTextDefault = UIColor(red: 0.067, green: 0.094, blue: 0.153, alpha: 1)
    public static let colorTextMuted = UIColor(red: 0.42, green: 0.447, blue: 0.502, alpha: 1)
    public static let colorTextSubtle = UIColor(red: 0.612, green: 0.639, blue: 0.686, alpha: 1) /** Placeholders; below AA on white for body text */
    public static let fontFamilyBody = "Inter"
    public static let fontWeightBold = 700
    public static let fontWeightRegular = 400
    public static let gradientHero1Color = UIColor(red: 0.145, green: 0.388, blue: 0.922, alpha: 1)
    public static let gradientHero1Position = 0
    public static let gradientHero2Color = UIColor(red: 0.486, green: 0.227, blue: 0.929, alpha: 1)
    public static let gradientHero2Position = 1
    public static let motionEase = [0.2, 0, 0, 1]
    public static let motionFast = TimeInterval(0.15)
    public static let radiusMd = CGFloat(8)
    public static let shadowCardBlur = CGFloat(12)
    public static let shadowCardColor = UIColor(red: 0, green: 0, blue: 0, alpha: 0.1)
    public static let shadowCardOffsetX = CGFloat(0)
    public static let shadowCardOffsetY = CGFloat(4)
    public static let shadowCardSpread = CGFloat(0)
    public static let spacingLg = CGFloat(32)
    public static let spacingMd = CGFloat(16)
    public static let spacingSm = CGFloat(8)
    public static let transitionFadeDelay = TimeInterval(0)
    public static let transitionFadeDuration = TimeInterval(0.15)
    public static let transitionFadeTimingFunction = [0.2, 0, 0, 1]
    public static let typographyBodyFontFamily = "Inter"
    public static let typographyBodyFontSize = CGFloat(16)
    public static let typographyBodyFontWeight = 400
    public static let typographyBodyLetterSpacing = CGFloat(0)
    public static let typographyBodyLineHeight = 1.5
    public static let typographyHeadingFontFamily = "Inter"
    public static let typographyHeadingFontSize = CGFloat(32)
    public static let typographyHeadingFontWeight = 700
    public static let typographyHeadingLetterSpacing = CGFloat(-0.5)
    public static let typographyHeadingLineHeight = 1.2
}